#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// The session's navigation decisions, before the end: the redirect URI is caught (never loaded),
/// web pages load in the view, windows stay in it, and any other scheme goes to a broker, the
/// ``ExternalSchemePolicy`` or nowhere.
extension EmbeddedWebviewSession {
    /// `decide-policy` while the session runs; `true` when decided here.
    func decidePolicy(_ decision: WebKitDifferences.PolicyDecision, type: UInt32) -> Bool {
        switch WebKitPolicyDecisionType(type) {
        case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION:
            let action = SignInNavigation.action(of: decision)
            let request = webkit_navigation_action_get_request(action)
            guard let url = SignInNavigation.url(of: request) else { return false }
            if self.request.redirectURI.matches(url) {
                // The callback (and its code) never reaches the network, from the page or from a
                // frame in it (WebKit does not say which frame navigates, so both are the redirect).
                webkit_policy_decision_ignore(decision)
                window?.loadEnded()
                if SignInNavigation.method(of: request) == "POST" {
                    // response_mode=form_post: the response is in a body the view never sends.
                    reporter.fail(.unsupportedResponseMode(url: url))
                    return true
                }
                // A server's redirect straight to the redirect URI ends a load that never finishes:
                // it ends here, so a success is still didStartLoad ... didFinishLoad ... didComplete.
                if let loading {
                    self.loading = nil
                    reporter.didFinishLoad(loading)
                }
                // The host reads the URI text as WebKit has it, so malformed percent-encoding is
                // refused, not re-encoded.
                reporter.handleRedirect(SignInNavigation.text(of: request) ?? url.absoluteString)
                return true
            }
            if SignInNavigation.loadsInView(url) {
                requested = url
                lastNavigationMethod = SignInNavigation.method(of: request) ?? "GET"  // WebKit gives NULL for GET
                return false
            }
            webkit_policy_decision_ignore(decision)
            if PKeyAuthChallenge.isChallenge(url) {
                answerDeviceChallenge(url)
                return true
            }
            handToSystem(url, isUserGesture: webkit_navigation_action_is_user_gesture(action) != 0)
            return true
        case WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION:
            let action = SignInNavigation.action(of: decision)
            let request = webkit_navigation_action_get_request(action)
            webkit_policy_decision_ignore(decision)
            if let url = SignInNavigation.url(of: request) {
                openNewWindowRequest(
                    url, text: SignInNavigation.text(of: request), isUserGesture: webkit_navigation_action_is_user_gesture(action) != 0)
            }
            return true
        case WEBKIT_POLICY_DECISION_TYPE_RESPONSE:
            return deviceChallengeInResponse(decision) || negotiateUnanswered(decision)
        default:
            return false
        }
    }

    /// A new-window request (`target=_blank`, `window.open`, from a click, a timer or a script):
    /// the redirect ends the session, web pages open in this view (where `decide-policy` sees
    /// them like any navigation), anything else goes to the external-scheme policy.
    func openNewWindowRequest(_ url: URL, text: String?, isUserGesture: Bool) {
        if request.redirectURI.matches(url) {
            reporter.handleRedirect(text ?? url.absoluteString)
        } else if SignInNavigation.isWeb(url) {
            // Not from inside the signal emission that asked for the window.
            Task { @MainActor [weak self] in
                guard let self, !self.ended, let webView = self.webView else { return }
                webkit_web_view_load_uri(webView, url.absoluteString)
            }
        } else {
            handToSystem(url, isUserGesture: isUserGesture)
        }
    }

    /// A URI the view does not load. A broker app's URI goes to a registered broker provider
    /// (after `willSwitchToBrokerApp`). Anything else (or a broker URI no provider takes) is handed
    /// to the system only after a user gesture, and only if the ``ExternalSchemePolicy`` allows
    /// its scheme or, in the library's window, the person agrees; otherwise it is refused and the
    /// page stays where it is.
    private func handToSystem(_ url: URL, isUserGesture: Bool) {
        let scheme = url.scheme?.lowercased() ?? ""
        if SignInNavigation.brokerSchemes.contains(scheme) || reporter.isBrokerURL(url) {
            window?.loadEnded()
            if reporter.switchToBroker(url) { return }  // the broker presents now; this view is dismissed
        }
        let policy = request.parameters.externalSchemes
        guard isUserGesture else { return }  // a timer, a redirect or a page's own script: never
        if policy.allows(scheme) {
            launch(url)
        } else if policy.asksPerson, let window, question == nil {
            question = ExternalSchemeQuestion.ask(url: url, over: window.window) { [weak self] open in
                guard let self else { return }
                self.question = nil
                if open, !self.ended { self.launch(url) }
            }
        }
    }

    /// Entra ID's device challenge (``PKeyAuthChallenge``): never loaded; the view requests its
    /// SubmitUrl with the answer of a device without a registered key. A malformed or unsafe
    /// challenge ends the session with an error that says so (not a blank page until the timeout).
    private func answerDeviceChallenge(_ url: URL) {
        let challenge: PKeyAuthChallenge
        do {
            challenge = try PKeyAuthChallenge(url)
        } catch {
            window?.loadEnded()
            reporter.fail(error)
            return
        }
        answer(challenge)
    }

    /// Requests the challenge's SubmitUrl with the device's answer.
    private func answer(_ challenge: PKeyAuthChallenge) {
        guard webView != nil, let made = webkit_uri_request_new(challenge.submitURL.absoluteString) else { return }
        let request = GObjectRef(adopting: made)
        guard let headers = webkit_uri_request_get_http_headers(request.pointer) else { return }
        soup_message_headers_append(headers, "Authorization", challenge.authorization)
        requested = challenge.submitURL
        // Not from inside the signal emission that decided the navigation.
        Task { @MainActor [weak self] in
            guard let self, !self.ended, let webView = self.webView else { return }
            webkit_web_view_load_request(webView, request.pointer)
        }
    }

    /// A main-frame `401` with `WWW-Authenticate: PKeyAuth ...` (the device challenge's other
    /// form): the view requests the same page again with the answer of a device without a
    /// registered key, once, for a page it loaded with GET (a form's POST cannot be sent again);
    /// a second 401 for the same page, or one to a POST, ends the session saying so.
    func deviceChallengeInResponse(_ decision: WebKitDifferences.PolicyDecision) -> Bool {
        guard let response = Self.mainFrame401Challenge(decision), let url = response.url else { return false }
        let challenge: PKeyAuthChallenge
        do {
            guard let read = try PKeyAuthChallenge(wwwAuthenticate: response.header, url: url) else { return false }
            challenge = read
        } catch {
            webkit_policy_decision_ignore(decision)
            window?.loadEnded()
            reporter.fail(error)
            return true
        }
        webkit_policy_decision_ignore(decision)
        guard lastNavigationMethod == "GET", !deviceChallengeAnswered.contains(url) else {
            window?.loadEnded()
            reporter.fail(WebAuthError(
                .invalidResponse,
                lastNavigationMethod == "GET"
                    ? "The sign-in page at \(url.host ?? "?") refused the device's answer to its device challenge (PKeyAuth)."
                    : "The sign-in page at \(url.host ?? "?") sent a device challenge (PKeyAuth) in answer to a form; it cannot be answered there.",
                url: url))
            return true
        }
        deviceChallengeAnswered.insert(url)
        answer(challenge)
        return true
    }

    /// Starts the system's handler for `url` (``ExternalAppLaunch``, near the view's window).
    /// Reported as finished so spinners stop.
    private func launch(_ url: URL) {
        ExternalAppLaunch.open(
            url, window: window?.window ?? webView.flatMap { WebKitDifferences.toplevelWindow(of: $0) }, toolkit: settings.toolkit)
        window?.loadEnded()
        reporter.didFinishLoad(url)
    }
}
