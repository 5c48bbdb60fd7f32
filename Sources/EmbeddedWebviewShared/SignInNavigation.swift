#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation

/// What a navigation in the sign-in view asks for: the text, method and URL of its
/// `WebKitURIRequest`, and which schemes the view loads itself.
@MainActor
enum SignInNavigation {
    /// Schemes of broker apps: a navigation to one posts `willSwitchToBrokerApp` before it is handed on.
    static let brokerSchemes: Set<String> = ["msauth", "msauthv2", "msauthv3"]
    /// Schemes the view loads itself; any other navigation is offered to the external-scheme policy.
    static let viewSchemes: Set<String> = ["http", "https", "about", "data", "blob"]

    /// The request's URI as WebKit has it (`webkit_uri_request_get_uri`), not re-encoded.
    static func text(of request: WebKitDifferences.URIRequest?) -> String? {
        guard let request, let uri = webkit_uri_request_get_uri(request) else { return nil }
        return String(cString: uri)
    }

    /// The request's HTTP method, upper-cased.
    static func method(of request: WebKitDifferences.URIRequest?) -> String? {
        guard let request, let method = webkit_uri_request_get_http_method(request) else { return nil }
        return String(cString: method).uppercased()
    }

    /// The request's URI as a `URL`; `nil` when Foundation cannot read it.
    static func url(of request: WebKitDifferences.URIRequest?) -> URL? {
        text(of: request).flatMap { URL(string: $0) }
    }

    /// The request of a navigation or new-window decision (`webkit_navigation_action_get_request`).
    static func request(of decision: WebKitDifferences.PolicyDecision) -> WebKitDifferences.URIRequest? {
        webkit_navigation_action_get_request(action(of: decision))
    }

    /// The navigation action of a navigation or new-window decision.
    static func action(of decision: WebKitDifferences.PolicyDecision) -> OpaquePointer? {
        webkit_navigation_policy_decision_get_navigation_action(wvh_navigation_policy_decision(decision))
    }

    /// An http or https URL.
    static func isWeb(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return scheme == "http" || scheme == "https"
    }

    /// A URL of a scheme the view loads itself (``viewSchemes``).
    static func loadsInView(_ url: URL) -> Bool {
        viewSchemes.contains(url.scheme?.lowercased() ?? "")
    }
}
