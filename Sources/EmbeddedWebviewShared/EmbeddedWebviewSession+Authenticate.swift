#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import WebviewHost

/// The view's `authenticate` signal: which challenges the session answers itself. Every case
/// calls into the file of its feature; anything else gets WebKit's default (`false`).
extension EmbeddedWebviewSession {
    /// Whether the session handles `challenge` (a `WebKitAuthenticationRequest *`).
    func authenticate(_ challenge: WebKitDifferences.AuthenticationRequest) -> Bool {
        switch true {
        case webkit_authentication_request_is_for_proxy(challenge) != 0:
            return SignInProxy.authenticate(challenge)
        default:
            return false
        }
    }
}
