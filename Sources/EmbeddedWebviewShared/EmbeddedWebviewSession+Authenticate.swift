#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import GLibSupport

/// The view's `authenticate` signal: one `switch` on the scheme WebKit asks about, each case
/// calling into the file of its concern. `false` leaves the request to WebKit (its own
/// credentials dialog, inside the view); every scheme without a case here gets that default.
extension EmbeddedWebviewSession {
    /// Connects `authenticate` on `view` for the session (disconnected with the session's other handlers).
    func attachAuthenticate(to view: WebKitDifferences.WebView) {
        connections.connect(view, "authenticate", .pointerReturningBool { [weak self] (request: WebKitDifferences.AuthenticationRequest?) -> Bool in
            guard let self, let request, !self.ended else { return false }
            switch webkit_authentication_request_get_scheme(request) {
            case WEBKIT_AUTHENTICATION_SCHEME_NEGOTIATE:
                return self.negotiateAsked(request)
            case WEBKIT_AUTHENTICATION_SCHEME_NTLM, WEBKIT_AUTHENTICATION_SCHEME_HTTP_BASIC,
                WEBKIT_AUTHENTICATION_SCHEME_HTTP_DIGEST:
                return webkit_authentication_request_is_for_proxy(request) == 0 ? self.passwordAsked(request) : false
            default:
                return false
            }
        })
    }
}
