import CWebKitGTK
import Foundation
import GLibSupport
import WebviewHost

/// One sign-in in a `WebKitWebView`: the library's own window, or the caller's view.
///
/// Bridges WebKit to the host: a navigation to the redirect URI is ignored in `decide-policy`
/// (the callback never reaches the network) and reported; new windows stay in the view; other
/// schemes go to the system; load, TLS and web-process failures end the session.
@MainActor
final class EmbeddedWebviewSession: WebviewProviderSession {
    /// Schemes of broker apps: a navigation to one posts `willSwitchToBrokerApp` before it is handed on.
    static let brokerSchemes: Set<String> = ["msauth", "msauthv2", "msauthv3"]
    /// Schemes the view loads itself; any other navigation is handed to the system.
    static let viewSchemes: Set<String> = ["http", "https", "about", "data", "blob"]

    private let request: WebAuthRequest
    private let reporter: WebAuthSessionReporter
    private let connections = SignalConnections()
    private var window: SignInWindow?
    private var webView: UnsafeMutableRawPointer?
    private var dismissed = false

    init(request: WebAuthRequest, reporter: WebAuthSessionReporter) {
        self.request = request
        self.reporter = reporter
    }

    private var usesCustomWebview: Bool { request.parameters.customWebview != nil }

    func prepare() async throws -> URL {
        if !usesCustomWebview, request.parameters.prefersEphemeralWebBrowserSession {
            try await SignInWebContexts.resetEphemeral()
        }
        return request.redirectURI.url
    }

    func present(authorizationURL: URL) throws {
        guard !dismissed else { return }
        guard let scheme = authorizationURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw WebAuthError(
                .invalidParameters,
                "The authorization URL \"\(authorizationURL.absoluteString)\" is not an http(s) URL.",
                url: authorizationURL)
        }
        let view: UnsafeMutableRawPointer
        if let custom = request.parameters.customWebview {
            view = custom.pointer
        } else {
            let context = SignInWebContexts.context(ephemeral: request.parameters.prefersEphemeralWebBrowserSession)
            let window = SignInWindow(parameters: request.parameters, context: context) { [reporter] in
                reporter.fail(.userCanceled())
            }
            self.window = window
            view = window.webView
        }
        webView = view
        reporter.setWebview(WebviewHandle(view))
        attachHandlers(to: view)
        window?.show()
        webkit_web_view_load_uri(wvh_web_view(view), authorizationURL.absoluteString)
    }

    func dismiss() {
        guard !dismissed else { return }
        dismissed = true
        if let webView, webkit_web_view_is_loading(wvh_web_view(webView)) != 0 {
            webkit_web_view_stop_loading(wvh_web_view(webView))
        }
        connections.disconnectAll()
        window?.destroy()
        window = nil
        webView = nil
    }

    // MARK: - WebKit signals

    private func attachHandlers(to view: UnsafeMutableRawPointer) {
        connections.connect(view, "decide-policy", .decidePolicy { [weak self] decision, type in
            guard let self, let decision else { return false }
            return self.decidePolicy(decision, type: type)
        })
        connections.connect(view, "create", .create { [weak self] action in
            // window.open and friends: never a new window.
            if let self, let action, let url = Self.url(of: webkit_navigation_action_get_request(wvh_navigation_action(action))) {
                self.openNewWindowRequest(url)
            }
            return nil
        })
        connections.connect(view, "load-changed", .enumValue { [weak self] event in
            self?.loadChanged(WebKitLoadEvent(event))
        })
        connections.connect(view, "load-failed", .loadFailed { [weak self] _, uri, error in
            self?.loadFailed(uri: uri, error: error) ?? false
        })
        connections.connect(view, "load-failed-with-tls-errors", .loadFailedWithTLSErrors { [weak self] uri, _, errors in
            self?.window?.loadEnded()
            self?.reporter.fail(WebAuthError(
                .tls,
                "The sign-in page's TLS certificate is not trusted (\(Self.describeTLSErrors(errors))); "
                    + "the page was not loaded. Check the server's certificate or the system's trusted certificates.",
                url: URL(string: uri)))
            return true
        })
        connections.connect(view, "web-process-terminated", .enumValue { [weak self] reason in
            self?.window?.loadEnded()
            let why = switch WebKitWebProcessTerminationReason(reason) {
            case WEBKIT_WEB_PROCESS_CRASHED: "crashed"
            case WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT: "used too much memory"
            default: "was terminated"
            }
            self?.reporter.fail(WebAuthError(
                .webProcessTerminated, "The web page's process \(why); start the sign-in again."))
        })
    }

    private func decidePolicy(_ decision: UnsafeMutableRawPointer, type: UInt32) -> Bool {
        switch WebKitPolicyDecisionType(type) {
        case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION:
            let action = webkit_navigation_policy_decision_get_navigation_action(wvh_navigation_policy_decision(decision))
            let request = webkit_navigation_action_get_request(action)
            guard let url = Self.url(of: request) else { return false }
            if self.request.redirectURI.matches(url) {
                // The callback (and its code) never reaches the network. The host reads the URI
                // text as WebKit has it, so malformed percent-encoding is refused, not re-encoded.
                webkit_policy_decision_ignore(wvh_policy_decision(decision))
                window?.loadEnded()
                reporter.handleRedirect(Self.text(of: request) ?? url.absoluteString)
                return true
            }
            if Self.loadsInView(url) { return false }
            webkit_policy_decision_ignore(wvh_policy_decision(decision))
            handToSystem(url)
            return true
        case WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION:
            let action = webkit_navigation_policy_decision_get_navigation_action(wvh_navigation_policy_decision(decision))
            webkit_policy_decision_ignore(wvh_policy_decision(decision))
            if let url = Self.url(of: webkit_navigation_action_get_request(action)) { openNewWindowRequest(url) }
            return true
        default:
            return false
        }
    }

    private func loadChanged(_ event: WebKitLoadEvent) {
        guard let webView, let uri = webkit_web_view_get_uri(wvh_web_view(webView)),
            let url = URL(string: String(cString: uri))
        else { return }
        switch event {
        case WEBKIT_LOAD_STARTED:
            window?.loadStarted()
            window?.showPage(url)
            reporter.didStartLoad(url)
        case WEBKIT_LOAD_COMMITTED:
            window?.showPage(url)  // after server redirects: the page really shown
        case WEBKIT_LOAD_FINISHED:
            window?.loadEnded()
            reporter.didFinishLoad(url)
        default:
            break
        }
    }

    /// A main-frame load failed. Loads we stopped ourselves (an ignored navigation) are not failures.
    private func loadFailed(uri: String, error: GLibError?) -> Bool {
        window?.loadEnded()
        if let error, Self.isOwnCancellation(error) { return false }
        if let url = URL(string: uri), request.redirectURI.matches(url) { return true }
        reporter.fail(WebAuthError(
            .network,
            "The sign-in page could not be loaded: \(error?.message ?? "unknown error"). Check the network connection and try again.",
            url: URL(string: uri), underlyingError: error))
        return true  // no WebKit error page: the window closes, a caller's view keeps what it showed
    }

    /// A new-window request (`target=_blank`, `window.open`): web pages open in this view, the
    /// redirect ends the session, anything else goes to the person's browser or its handler.
    private func openNewWindowRequest(_ url: URL) {
        if request.redirectURI.matches(url) {
            reporter.handleRedirect(url)
        } else if Self.isWeb(url) {
            // Not from inside the signal emission that asked for the window.
            Task { @MainActor [weak self] in
                guard let self, !self.dismissed, let webView = self.webView else { return }
                webkit_web_view_load_uri(wvh_web_view(webView), url.absoluteString)
            }
        } else {
            handToSystem(url)
        }
    }

    /// Hands a URI the view does not load on: a broker app's URI to a registered broker provider
    /// (after `willSwitchToBrokerApp`), anything else, or a broker URI no provider takes, to the
    /// system (`g_app_info_launch_default_for_uri_async`). Reported as finished so spinners stop.
    private func handToSystem(_ url: URL) {
        let scheme = url.scheme?.lowercased() ?? ""
        if Self.brokerSchemes.contains(scheme) || reporter.isBrokerURL(url) {
            window?.loadEnded()
            if reporter.switchToBroker(url) { return }  // the broker presents now; this view is dismissed
        }
        let launchContext = webView.flatMap { gtk_widget_get_display(wvh_widget($0)) }
            .flatMap { gdk_display_get_app_launch_context($0) }
        g_app_info_launch_default_for_uri_async(
            url.absoluteString, launchContext.map { wvh_app_launch_context(UnsafeMutableRawPointer($0)) }, nil, nil, nil)
        if let launchContext { g_object_unref(UnsafeMutableRawPointer(launchContext)) }
        window?.loadEnded()
        reporter.didFinishLoad(url)
    }

    // MARK: - Helpers

    private static func text(of request: UnsafeMutablePointer<WebKitURIRequest>?) -> String? {
        guard let request, let uri = webkit_uri_request_get_uri(request) else { return nil }
        return String(cString: uri)
    }

    private static func url(of request: UnsafeMutablePointer<WebKitURIRequest>?) -> URL? {
        guard let request, let uri = webkit_uri_request_get_uri(request) else { return nil }
        return URL(string: String(cString: uri))
    }

    private static func isWeb(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return scheme == "http" || scheme == "https"
    }

    private static func loadsInView(_ url: URL) -> Bool {
        viewSchemes.contains(url.scheme?.lowercased() ?? "")
    }

    /// "Frame load interrupted by policy change" and "load cancelled": our own ignore decisions.
    private static func isOwnCancellation(_ error: GLibError) -> Bool {
        let policyDomain = String(cString: g_quark_to_string(webkit_policy_error_quark()))
        let networkDomain = String(cString: g_quark_to_string(webkit_network_error_quark()))
        return (error.domain == policyDomain
            && error.code == Int32(WEBKIT_POLICY_ERROR_FRAME_LOAD_INTERRUPTED_BY_POLICY_CHANGE.rawValue))
            || (error.domain == networkDomain && error.code == Int32(WEBKIT_NETWORK_ERROR_CANCELLED.rawValue))
    }

    private static func describeTLSErrors(_ flags: UInt32) -> String {
        let names: [(GTlsCertificateFlags, String)] = [
            (G_TLS_CERTIFICATE_UNKNOWN_CA, "unknown issuer"),
            (G_TLS_CERTIFICATE_BAD_IDENTITY, "wrong host name"),
            (G_TLS_CERTIFICATE_NOT_ACTIVATED, "not yet valid"),
            (G_TLS_CERTIFICATE_EXPIRED, "expired"),
            (G_TLS_CERTIFICATE_REVOKED, "revoked"),
            (G_TLS_CERTIFICATE_INSECURE, "insecure algorithm"),
        ]
        let found = names.filter { flags & $0.0.rawValue != 0 }.map(\.1)
        return found.isEmpty ? "certificate error" : found.joined(separator: ", ")
    }
}
