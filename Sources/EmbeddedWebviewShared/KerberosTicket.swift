import CGSSAPI

/// The person's Kerberos ticket as WebKit's network process would find it: GSS-API's default
/// initiator credential (the cache `KRB5CCNAME` names, else the one `KRB5_CONFIG` or
/// `/etc/krb5.conf` names), the environment both processes share. Read only to say why a page's
/// Negotiate went unanswered; nothing is sent.
enum KerberosTicket: Equatable {
    /// A ticket that has not expired (the page may still have refused it).
    case valid
    /// A ticket whose time is up.
    case expired
    /// No ticket (no cache, or an empty one).
    case missing

    /// `gss_acquire_cred` for the default initiator, released at once.
    static func current() -> KerberosTicket {
        var minor: OM_uint32 = 0
        var credential: gss_cred_id_t?
        var lifetime: OM_uint32 = 0
        let major = gss_acquire_cred(
            &minor, nil, wvh_gss_c_indefinite, nil, gss_cred_usage_t(GSS_C_INITIATE), &credential, nil, &lifetime)
        if credential != nil { gss_release_cred(&minor, &credential) }
        switch wvh_gss_routine_error(major) {
        case wvh_gss_s_complete: return lifetime == 0 ? .expired : .valid
        case wvh_gss_s_credentials_expired: return .expired
        default: return .missing
        }
    }
}
