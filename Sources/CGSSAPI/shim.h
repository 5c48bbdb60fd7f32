// MIT Kerberos's GSS-API (libgssapi_krb5, which libsoup already links for Negotiate): the embedded
// provider reads whether the person's Kerberos ticket is there and valid, to say so when a page's
// Negotiate could not be answered.
#include <gssapi/gssapi.h>
#include <gssapi/gssapi_krb5.h>

// The status codes and the "no name / no limit" values are macros with casts, which Swift does not import.
static const OM_uint32 wvh_gss_s_complete = GSS_S_COMPLETE;
static const OM_uint32 wvh_gss_s_credentials_expired = GSS_S_CREDENTIALS_EXPIRED;
static const OM_uint32 wvh_gss_s_no_cred = GSS_S_NO_CRED;
static const OM_uint32 wvh_gss_c_indefinite = GSS_C_INDEFINITE;
static inline OM_uint32 wvh_gss_routine_error(OM_uint32 major) { return GSS_ROUTINE_ERROR(major); }
