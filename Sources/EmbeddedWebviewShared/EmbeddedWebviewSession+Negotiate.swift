#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// Windows Integrated Authentication (`WWW-Authenticate: Negotiate`, Kerberos through SPNEGO).
///
/// WebKit's network process answers Negotiate itself, with the person's Kerberos ticket
/// (`KRB5CCNAME`), to https hosts, or to the hosts ``EmbeddedWebviewProvider/allowNegotiate(to:)``
/// named: the page then goes on without a word. When it cannot (no ticket or an expired one, an
/// ephemeral session, where WebKit turns Negotiate off, or a plain-http host not named), the view
/// would show the provider's 401 page until the timeout. Instead the session ends at once with
/// `integratedAuthenticationUnavailable`, saying which. A challenge that also offers Basic, Digest
/// or NTLM is left to WebKit's credentials dialog, inside the view.
extension EmbeddedWebviewSession {
    /// A main-frame response: a 401 that offers Negotiate and nothing a person can type a password
    /// for ends the session (Negotiate was not answered, or failed). `true` when decided here.
    func negotiateUnanswered(_ decision: WebKitDifferences.PolicyDecision) -> Bool {
        guard let challenge = Self.mainFrame401Challenge(decision) else { return false }
        let schemes = NegotiateChallenge.schemes(in: challenge.header)
        guard NegotiateChallenge.onlyNegotiate(schemes) else { return false }
        webkit_policy_decision_ignore(decision)
        endForNegotiate(url: challenge.url)
        return true
    }

    /// A main-frame `401`'s `WWW-Authenticate` (all of its headers, comma-joined) and the URL that
    /// answered it; `nil` for any other response. Read by the Negotiate and PKeyAuth checks.
    static func mainFrame401Challenge(_ decision: WebKitDifferences.PolicyDecision) -> (header: String, url: URL?)? {
        let responseDecision = wvh_response_policy_decision(decision)
        guard webkit_response_policy_decision_is_main_frame_main_resource(responseDecision) != 0,
            let response = webkit_response_policy_decision_get_response(responseDecision),
            webkit_uri_response_get_status_code(response) == 401,
            let headers = webkit_uri_response_get_http_headers(response),
            let list = soup_message_headers_get_list(headers, "WWW-Authenticate")
        else { return nil }
        return (String(cString: list), webkit_uri_response_get_uri(response).flatMap { URL(string: String(cString: $0)) })
    }

    /// WebKit asks for credentials for Negotiate (its own attempt failed): no password helps.
    func negotiateAsked(_ request: WebKitDifferences.AuthenticationRequest) -> Bool {
        let host = webkit_authentication_request_get_host(request).map { String(cString: $0) }
        let port = webkit_authentication_request_get_port(request)
        webkit_authentication_request_cancel(request)
        endForNegotiate(url: host.flatMap { URL(string: "http://\($0):\(port)/") })
        return true
    }

    /// Basic, Digest or NTLM for the page (not a proxy): WebKit's own credentials dialog, inside
    /// the view (the library's window or the caller's), in the language WebKit was given.
    func passwordAsked(_ request: WebKitDifferences.AuthenticationRequest) -> Bool {
        window?.loadEnded()
        return false
    }

    private func endForNegotiate(url: URL?) {
        window?.loadEnded()
        let ephemeral = webView.map { WebKitDifferences.isEphemeral($0) } ?? request.parameters.prefersEphemeralWebBrowserSession
        reporter.fail(NegotiateChallenge.unanswered(url: url, ephemeral: ephemeral))
    }
}
