#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// WebKit's `authenticate` signal: the challenges a sign-in's servers put to the view. Each scheme
/// the session answers calls into its own files (a proxy's password: `SignInProxy`; client
/// certificates: `ClientCertificates`; Negotiate and the password schemes: `+Negotiate`); every
/// other scheme gets WebKit's default (`FALSE`: its credentials dialog, inside the view).
/// Connected with the session's other view signals and disconnected with them.
extension EmbeddedWebviewSession {
    /// `authenticate` while the handler is connected: `true` when the session answered `request`
    /// (or will, asynchronously), `false` for WebKit's default. After the end every request is
    /// cancelled: nothing of an ended session answers a server.
    func authenticate(_ request: WebKitDifferences.AuthenticationRequest) -> Bool {
        if ended {
            webkit_authentication_request_cancel(request)
            return true
        }
        // A proxy's password (407): one credential, asked once, shared with SignIn's requests.
        if webkit_authentication_request_is_for_proxy(request) != 0 || SignInProxy.isRefusal(request) {
            return SignInProxy.authenticate(request, over: questionWindow, questions: settings.proxyQuestions) { [weak self] error in
                guard let self, !self.ended else { return }
                self.window?.loadEnded()
                self.reporter.fail(error)
            }
        }
        switch webkit_authentication_request_get_scheme(request) {
        case WEBKIT_AUTHENTICATION_SCHEME_CLIENT_CERTIFICATE_REQUESTED:
            return clientCertificateRequested(request)
        case WEBKIT_AUTHENTICATION_SCHEME_CLIENT_CERTIFICATE_PIN_REQUESTED:
            return clientCertificatePINRequested(request)
        case WEBKIT_AUTHENTICATION_SCHEME_NEGOTIATE:
            return negotiateAsked(request)
        case WEBKIT_AUTHENTICATION_SCHEME_NTLM, WEBKIT_AUTHENTICATION_SCHEME_HTTP_BASIC, WEBKIT_AUTHENTICATION_SCHEME_HTTP_DIGEST:
            return passwordAsked(request)
        default:
            return false
        }
    }
}
