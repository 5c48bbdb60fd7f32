// GnuTLS's PKCS #11 and X.509 calls, for the embedded view's list of the certificates on the
// person's tokens (smart cards, YubiKey PIV, SoftHSM: p11-kit's configured modules).
#ifndef WEBVIEWHOST_CGNUTLS_SHIM_H
#define WEBVIEWHOST_CGNUTLS_SHIM_H
#include <gnutls/gnutls.h>
#include <gnutls/pkcs11.h>
#include <gnutls/x509.h>

/// `gnutls_free`, a variable holding a function pointer in C, as a call.
static inline void wvh_gnutls_free(void *pointer) { gnutls_free(pointer); }
#endif
