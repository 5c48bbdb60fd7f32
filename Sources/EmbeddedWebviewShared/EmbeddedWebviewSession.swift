#if WEBKITGTK_6
import CWebKitGTK6
#else
import CWebKitGTK
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// One sign-in in a `WebKitWebView`: the library's own window, or the caller's view.
///
/// Bridges WebKit to the host: a navigation to the redirect URI is ignored in `decide-policy`
/// (the callback never reaches the network) and reported; windows a page opens stay in the view;
/// other schemes are handed on only as the ``ExternalSchemePolicy`` allows; load, TLS and
/// web-process failures end the session. At the end, a caller's view is stopped and blanked
/// before the handlers go (see ``dismiss()``), so nothing the page does later can deliver the code.
@MainActor
final class EmbeddedWebviewSession: WebviewProviderSession {
    /// Schemes of broker apps: a navigation to one posts `willSwitchToBrokerApp` before it is handed on.
    static let brokerSchemes: Set<String> = ["msauth", "msauthv2", "msauthv3"]
    /// Schemes the view loads itself; any other navigation is offered to the external-scheme policy.
    static let viewSchemes: Set<String> = ["http", "https", "about", "data", "blob"]
    /// How long a caller's view may take to blank itself after the session before our handlers go anyway.
    static let blankingLimit: Duration = .seconds(5)
    /// Sessions whose caller's view is being blanked, by view: a new session on the same view
    /// ends the previous one's blanking first, so two sessions never handle one view.
    private static var blanking: [UInt: EmbeddedWebviewSession] = [:]

    private let request: WebAuthRequest
    private let reporter: WebAuthSessionReporter
    private let connections = SignalConnections()
    private var window: SignInWindow?
    private var webView: UnsafeMutableRawPointer?
    private var dismissed = false
    /// The page whose load started and has not finished yet.
    private var loading: URL?
    /// The page the view was last sent to load (the authorization URL, then each navigation let
    /// into the view): what a load is of while the view reports no URI for it (a caller's view
    /// that showed `load_html` without a base URI reports "" at the start of the next load).
    private var requested: URL?
    /// The caller view's `javascript-can-open-windows-automatically` before the session, restored at the end.
    private var callerCouldOpenWindows: gboolean?
    /// The question shown before a foreign scheme is handed on (library's window only), or before
    /// the sign-in moves to the browser.
    private var question: SignInQuestion?
    /// Watches the page for WebAuthn calls and refusals of embedded agents.
    private var pageWatch: SignInPageWatch?
    /// A hand-over to the browser was asked for and not declined: the page's later triggers wait.
    private var handOverPending = false
    /// After the end, in a caller's view: the first navigation that is not our `about:blank` is
    /// the app's; it is let through, and our handlers go once its page is in.
    private var appNavigation: String?
    /// The caller destroyed its view during the session: there is nothing left to stop or blank.
    private var callerViewDestroyed = false
    /// The caller's view was sent to `about:blank`: its next finished load ends the blanking (not
    /// the failed load a handler that ended the session is still inside of).
    private var blankLoadStarted = false
    /// The view made a sign-in surface, not a browser, for the session (see ``SignInSurface``).
    private var surface: SignInSurface?
    /// The desktop's light/dark preference set for the library's window, put back at the end.
    private var appearance: SignInAppearance?

    init(request: WebAuthRequest, reporter: WebAuthSessionReporter) {
        self.request = request
        self.reporter = reporter
    }

    private var usesCustomWebview: Bool { request.parameters.customWebview != nil }

    func prepare() async throws -> URL {
        if !usesCustomWebview, request.parameters.prefersEphemeralWebBrowserSession {
            try await SignInWebContexts.resetEphemeral()
        }
        if !usesCustomWebview { await SignInAppearance.readDesktopPreference() }
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
        // Making the library's window and its first load start WebKit's processes; under umask
        // 077 the files its network process writes (caches, storage) are 0600 and its folders
        // 0700. Only for the length of this call, and only ever tighter (see PrivateFolders).
        let previousMask = usesCustomWebview ? nil : umask(0o077)
        defer { if let previousMask { umask(previousMask) } }
        let view: UnsafeMutableRawPointer
        if let custom = request.parameters.customWebview {
            view = custom.pointer
            Self.blanking[UInt(bitPattern: view)]?.endBlanking()
            // Windows a page opens without a gesture (a timer's window.open, a script's click on a
            // target=_blank link) are dropped by WebKit's popup blocker before any signal: let them
            // reach `create`, which keeps them in this view. The caller's value comes back at the end.
            let settings = webkit_web_view_get_settings(wvh_web_view(view))
            callerCouldOpenWindows = webkit_settings_get_javascript_can_open_windows_automatically(settings)
            webkit_settings_set_javascript_can_open_windows_automatically(settings, 1)
        } else {
            // A window made ahead of time (prewarm) when one waits, else a new one.
            let ephemeral = request.parameters.prefersEphemeralWebBrowserSession
            let window = PrewarmedWindows.take(ephemeral: ephemeral)
                ?? SignInWindow(context: SignInWebContexts.context(ephemeral: ephemeral))
            window.configure(parameters: request.parameters) { [weak self] in
                self?.reporter.fail(.userCanceled())
                self?.dismissIfEnded()
            }
            self.window = window
            view = window.webView
            appearance = SignInAppearance.applyForWindow()
        }
        webView = view
        reporter.setWebview(WebviewHandle(view))
        attachHandlers(to: view)
        surface = SignInSurface.apply(to: view)
        let canHandOver = reporter.canHandOverToSystemBrowser
        pageWatch = SignInPageWatch(
            view: view, advertisesWebAuthn: canHandOver, refusals: request.parameters.embeddedAgentRefusals
        ) { [weak self] finding in
            self?.pageFound(finding)
        }
        if canHandOver {
            window?.offerContinueInBrowser { [weak self] in self?.personChoseBrowser() }
        }
        if usesCustomWebview {
            // The app destroyed its view (or the window holding it) before the end: the session
            // cannot go on there, and would otherwise never end.
            connections.connect(view, "destroy", .plain { [weak self] in
                guard let self else { return }
                self.callerViewDestroyed = true
                self.reporter.fail(WebAuthError(
                    .canceled, "The app destroyed its sign-in view (customWebview) before sign-in finished."))
            })
        }
        // The load first: WebKit starts its processes and the request while the window maps.
        requested = authorizationURL
        webkit_web_view_load_uri(wvh_web_view(view), authorizationURL.absoluteString)
        window?.show()
    }

    /// Ends the session's hold on the view. The library's window is destroyed. A caller's view is
    /// stopped and loads `about:blank` (right after the caller has resumed): the page's scripts and timers die with it, so a page that
    /// goes on (to the redirect URI, say) after a cancel, a timeout or a failure cannot deliver the
    /// code, and a late redirect after a success cannot either. Until the blank page is in (at most
    /// ``blankingLimit``) our `decide-policy` handler stays and refuses every other navigation;
    /// then every handler is disconnected. The caller's popup setting is restored at once.
    func dismiss() {
        guard !dismissed else { return }
        dismissed = true
        question?.destroy()
        question = nil
        pageWatch?.stop()
        pageWatch = nil
        window?.offerContinueInBrowser(nil)
        appearance?.restore()
        appearance = nil
        if let webView, let callerCouldOpenWindows, !callerViewDestroyed {
            webkit_settings_set_javascript_can_open_windows_automatically(
                webkit_web_view_get_settings(wvh_web_view(webView)), callerCouldOpenWindows)
            surface?.restoreSettings()
        }
        if let window {
            webkit_web_view_stop_loading(wvh_web_view(window.webView))
            // Out of sight now, and until it goes our handlers refuse every navigation (the page is
            // stopped, but its timers may still try the redirect URI). Destroyed, the view and its
            // page with it, once the main loop is idle, after the resumed caller ran: destroying a
            // web view takes milliseconds nobody needs to wait for.
            window.hide()
            self.window = nil
            webView = nil
            let ephemeral = request.parameters.prefersEphemeralWebBrowserSession
            whenIdle { [self] in
                surface?.end()
                connections.disconnectAll()
                window.destroy()
                SignInWebContexts.tightenPersistentFolders()
                PrewarmedWindows.sessionEnded(ephemeral: ephemeral)
            }
            return
        }
        guard let webView, !callerViewDestroyed else {
            surface?.end()
            connections.disconnectAll()
            self.webView = nil
            return
        }
        // Stopped and sent to `about:blank` now, before the caller resumes: the view is the app's
        // the moment its `await` returns, and the app's first navigation, coming after this one,
        // wins. Until the blank page or the app's page is in, our handlers refuse the redirect URI,
        // windows and any navigation that is neither (the ended page's timers), so the page
        // cannot deliver the code; then every handler goes.
        Self.blanking[UInt(bitPattern: webView)] = self
        webkit_web_view_stop_loading(wvh_web_view(webView))
        // The ended page's process is ended too: a page's timer that starts a navigation (even
        // one we refuse) cancels whatever load is pending, the app's included, so nothing of the
        // ended page may run on. The app's own `web-process-terminated` handlers see
        // WEBKIT_WEB_PROCESS_TERMINATED_BY_API; the next load starts a new process.
        webkit_web_view_terminate_web_process(wvh_web_view(webView))
        webkit_web_view_load_uri(wvh_web_view(webView), "about:blank")
        blankLoadStarted = true
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: Self.blankingLimit)
            self?.endBlanking()
        }
    }

    /// Called at the end of a handler that reported the outcome: the caller resumes on the next
    /// turn of the main loop, with the host's ``dismiss()`` right behind it, so the session is put
    /// out of sight (the window hidden, the page stopped) before the handler returns.
    private func dismissIfEnded() {
        if !dismissed, reporter.isFinished { dismiss() }
    }

    /// The caller's view shows `about:blank` (or took too long): disconnect every handler.
    private func endBlanking() {
        guard dismissed, let webView else { return }
        if Self.blanking[UInt(bitPattern: webView)] === self {
            Self.blanking[UInt(bitPattern: webView)] = nil
        }
        surface?.end()
        connections.disconnectAll()
        self.webView = nil
    }

    /// After the end, while a caller's view is being blanked: `about:blank` and the app's own
    /// navigation (the first other one, which the app started after its `await` returned) load;
    /// the redirect URI, other schemes, windows and any further navigation (the ended page's
    /// timers) are refused.
    private func decideWhileBlanking(_ decision: UnsafeMutableRawPointer, type: UInt32) -> Bool {
        let request: WebKitToolkit.URIRequest?
        switch WebKitPolicyDecisionType(type) {
        case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION:
            request = webkit_navigation_action_get_request(
                webkit_navigation_policy_decision_get_navigation_action(wvh_navigation_policy_decision(decision)))
        case WEBKIT_POLICY_DECISION_TYPE_RESPONSE:
            return false  // only navigations we let through get a response
        default:
            request = nil
        }
        let text = Self.text(of: request)
        if let text, let url = URL(string: text) {
            if text == "about:blank" || text == appNavigation { return false }
            if appNavigation == nil, !self.request.redirectURI.matches(url), Self.loadsInView(url) {
                appNavigation = text  // the app's own page, after the end
                surface?.end()  // the app's page is the app's: no sign-in rule applies to it
                return false
            }
        }
        webkit_policy_decision_ignore(wvh_policy_decision(decision))
        return true
    }

    // MARK: - WebKit signals

    private func attachHandlers(to view: UnsafeMutableRawPointer) {
        connections.connect(view, "decide-policy", .decidePolicy { [weak self] decision, type in
            guard let self, let decision else { return false }
            if self.dismissed { return self.decideWhileBlanking(decision, type: type) }
            return self.decidePolicy(decision, type: type)
        })
        connections.connect(view, "create", .create { [weak self] action in
            // window.open, target=_blank and friends: never a new window.
            guard let self, !self.dismissed, let action else { return nil }
            let navigation = wvh_navigation_action(action)
            let request = webkit_navigation_action_get_request(navigation)
            if let url = Self.url(of: request) {
                self.openNewWindowRequest(
                    url, text: Self.text(of: request), isUserGesture: webkit_navigation_action_is_user_gesture(navigation) != 0)
            }
            return nil
        })
        connections.connect(view, "load-changed", .enumValue { [weak self] event in
            guard let self else { return }
            if self.dismissed {
                // The blank page, or the app's own page, is in: nothing of the ended page is left.
                // (A blank load the app's navigation superseded also finishes, failed, while the
                // ended page is still shown: that one does not count.)
                let uri = self.webView.flatMap { webkit_web_view_get_uri(wvh_web_view($0)) }.map { String(cString: $0) }
                if WebKitLoadEvent(event) == WEBKIT_LOAD_FINISHED, self.blankLoadStarted, uri == "about:blank" { self.endBlanking() }
                if WebKitLoadEvent(event) == WEBKIT_LOAD_COMMITTED, self.appNavigation != nil { self.endBlanking() }
                return
            }
            self.loadChanged(WebKitLoadEvent(event))
        })
        connections.connect(view, "load-failed", .loadFailed { [weak self] _, uri, error in
            guard let self else { return false }
            if self.dismissed {
                // The app's own load failed: its error page is the app's business.
                if let navigation = self.appNavigation, uri == navigation {
                    self.endBlanking()
                    return false
                }
                return true  // no error page; load-changed FINISHED follows
            }
            return self.loadFailed(uri: uri, error: error)
        })
        connections.connect(view, "load-failed-with-tls-errors", .loadFailedWithTLSErrors { [weak self] uri, _, errors in
            self?.window?.loadEnded()
            self?.reporter.fail(WebAuthError(
                .tls,
                "The sign-in page's TLS certificate is not trusted (\(Self.describeTLSErrors(errors))); "
                    + "the page was not loaded. Check the server's certificate or the system's trusted certificates.",
                url: URL(string: uri)))
            self?.dismissIfEnded()
            return true
        })
        connections.connect(view, "web-process-terminated", .enumValue { [weak self] reason in
            if self?.dismissed == true {
                self?.endBlanking()  // nothing of the page is left to run
                return
            }
            self?.window?.loadEnded()
            let why = switch WebKitWebProcessTerminationReason(reason) {
            case WEBKIT_WEB_PROCESS_CRASHED: "crashed"
            case WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT: "used too much memory"
            default: "was terminated"
            }
            self?.reporter.fail(WebAuthError(
                .webProcessTerminated, "The web page's process \(why); start the sign-in again."))
            self?.dismissIfEnded()
        })
    }

    private func decidePolicy(_ decision: UnsafeMutableRawPointer, type: UInt32) -> Bool {
        switch WebKitPolicyDecisionType(type) {
        case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION:
            let action = webkit_navigation_policy_decision_get_navigation_action(wvh_navigation_policy_decision(decision))
            let request = webkit_navigation_action_get_request(action)
            guard let url = Self.url(of: request) else { return false }
            if self.request.redirectURI.matches(url) {
                // The callback (and its code) never reaches the network, from the page or from a
                // frame in it (WebKit does not say which frame navigates, so both are the redirect).
                webkit_policy_decision_ignore(wvh_policy_decision(decision))
                window?.loadEnded()
                if Self.method(of: request) == "POST" {
                    // response_mode=form_post: the response is in a body the view never sends.
                    reporter.fail(.unsupportedResponseMode(url: url))
                    dismissIfEnded()
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
                reporter.handleRedirect(Self.text(of: request) ?? url.absoluteString)
                dismissIfEnded()
                return true
            }
            if Self.loadsInView(url) {
                requested = url
                return false
            }
            webkit_policy_decision_ignore(wvh_policy_decision(decision))
            handToSystem(url, isUserGesture: webkit_navigation_action_is_user_gesture(action) != 0)
            return true
        case WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION:
            let action = webkit_navigation_policy_decision_get_navigation_action(wvh_navigation_policy_decision(decision))
            let request = webkit_navigation_action_get_request(action)
            webkit_policy_decision_ignore(wvh_policy_decision(decision))
            if let url = Self.url(of: request) {
                openNewWindowRequest(
                    url, text: Self.text(of: request), isUserGesture: webkit_navigation_action_is_user_gesture(action) != 0)
            }
            return true
        default:
            return false
        }
    }

    private func loadChanged(_ event: WebKitLoadEvent) {
        guard let webView else { return }
        // The view's URI; when a load starts in a view that has none to report yet (WebKitGTK
        // 2.50 gives "" there for a caller's view that showed `load_html` without a base URI),
        // the page it was sent to, so that `didStartLoad` is never lost.
        let current = webkit_web_view_get_uri(wvh_web_view(webView)).flatMap { URL(string: String(cString: $0)) }
        guard let url = current ?? (event == WEBKIT_LOAD_STARTED ? requested : nil) else { return }
        switch event {
        case WEBKIT_LOAD_STARTED:
            window?.loadStarted()
            window?.showPage(url)
            loading = url
            reporter.didStartLoad(url)
        case WEBKIT_LOAD_COMMITTED:
            window?.showPage(url)  // after server redirects: the page really shown
            if let rule = EmbeddedAgentRefusal.firstMatch(address: url.absoluteString, in: request.parameters.embeddedAgentRefusals) {
                handOver(SystemBrowserHandOver(
                    reason: .embeddedAgentRefused, detail: "\(rule.name): the provider refuses embedded views", pageURL: url),
                    personChose: false)
            }
        case WEBKIT_LOAD_FINISHED:
            window?.loadEnded()
            // Only loads this session started (and did not end at the redirect) finish here.
            guard loading != nil else { return }
            loading = nil
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
        dismissIfEnded()
        return true  // no WebKit error page: the window closes, a caller's view keeps what it showed
    }

    /// A new-window request (`target=_blank`, `window.open`, from a click, a timer or a script):
    /// the redirect ends the session, web pages open in this view (where `decide-policy` sees
    /// them like any navigation), anything else goes to the external-scheme policy.
    private func openNewWindowRequest(_ url: URL, text: String?, isUserGesture: Bool) {
        if request.redirectURI.matches(url) {
            reporter.handleRedirect(text ?? url.absoluteString)
            dismissIfEnded()
        } else if Self.isWeb(url) {
            // Not from inside the signal emission that asked for the window.
            Task { @MainActor [weak self] in
                guard let self, !self.dismissed, let webView = self.webView else { return }
                webkit_web_view_load_uri(wvh_web_view(webView), url.absoluteString)
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
        if Self.brokerSchemes.contains(scheme) || reporter.isBrokerURL(url) {
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
                if open, !self.dismissed { self.launch(url) }
            }
        }
    }

    /// Starts the system's handler for `url` (`g_app_info_launch_default_for_uri_async`, on the
    /// view's display). Reported as finished so spinners stop.
    private func launch(_ url: URL) {
        let launchContext = webView.flatMap { gtk_widget_get_display(wvh_widget($0)) }
            .flatMap { gdk_display_get_app_launch_context($0) }
        g_app_info_launch_default_for_uri_async(
            url.absoluteString, launchContext.map { wvh_app_launch_context(UnsafeMutableRawPointer($0)) }, nil,
            { _, result, _ in
                // Nothing waits for the handler; a failure is logged (GLib's default handler, domain WebviewHost).
                var error: UnsafeMutablePointer<GError>?
                if g_app_info_launch_default_for_uri_finish(result, &error) == 0, let error {
                    let message = "Could not open a link from the sign-in page: " + String(cString: error.pointee.message)
                    g_error_free(error)
                    g_log_default_handler("WebviewHost", G_LOG_LEVEL_WARNING, message, nil)
                }
            }, nil)
        if let launchContext { g_object_unref(UnsafeMutableRawPointer(launchContext)) }
        window?.loadEnded()
        reporter.didFinishLoad(url)
    }

    // MARK: - Hand-over to the browser

    /// The page the view shows now.
    private var currentPage: URL? {
        webView.flatMap { webkit_web_view_get_uri(wvh_web_view($0)) }.flatMap { URL(string: String(cString: $0)) }
    }

    /// The person clicked "Continue in your browser".
    private func personChoseBrowser() {
        handOver(
            SystemBrowserHandOver(reason: .personChose, detail: "the person chose to continue in the browser", pageURL: currentPage),
            personChose: true)
    }

    /// What the page watch found: a WebAuthn call, or a refusal's text.
    private func pageFound(_ finding: SignInPageWatch.Finding) {
        guard !dismissed else { return }
        switch finding {
        case .webAuthn(let operation):
            let what = operation == "create" ? "to register a passkey or security key" : "for a passkey or security key"
            handOver(SystemBrowserHandOver(
                reason: .webAuthn, detail: "the page asked \(what) (navigator.credentials.\(operation)), which this web view cannot offer",
                pageURL: currentPage), personChose: false)
        case .refusal(let index):
            let rules = request.parameters.embeddedAgentRefusals
            let name = rules.indices.contains(index) ? rules[index].name : "a refusal rule"
            handOver(SystemBrowserHandOver(
                reason: .embeddedAgentRefused, detail: "\(name): the provider refuses embedded views", pageURL: currentPage),
                personChose: false)
        }
    }

    /// Moves the sign-in to the browser as the app's ``SystemBrowserHandOverPolicy`` says: at once,
    /// after the person agrees (unless they chose it), or not at all (the host then ends the
    /// session with `systemBrowserRequired`). This view is put out of sight when the host took over.
    private func handOver(_ handOver: SystemBrowserHandOver, personChose: Bool) {
        guard !dismissed, !handOverPending else { return }
        if request.parameters.systemBrowserHandOver == .askFirst, !personChose,
            let parent = window?.window ?? webView.flatMap({ WebKitToolkit.toplevelWindow(of: $0) })
        {
            handOverPending = true
            question = SignInQuestion(
                title: "Continue in your browser?",
                detail: "This sign-in page needs something this window cannot offer (\(SignInQuestion.shortened(handOver.detail))). "
                    + "Your web browser can finish signing in.",
                over: parent, cancel: "_Stay here", accept: "Continue in _browser", acceptByDefault: true
            ) { [weak self] accepted in
                guard let self else { return }
                self.question = nil
                self.handOverPending = false
                guard !self.dismissed else { return }
                if accepted {
                    self.reporter.handOverToSystemBrowser(handOver)
                    self.dismissIfEnded()
                } else {
                    self.pageWatch?.refusePendingRequests()
                }
            }
            return
        }
        handOverPending = true
        reporter.handOverToSystemBrowser(handOver)
        dismissIfEnded()
    }

    // MARK: - Helpers

    private static func text(of request: WebKitToolkit.URIRequest?) -> String? {
        guard let request, let uri = webkit_uri_request_get_uri(request) else { return nil }
        return String(cString: uri)
    }

    private static func method(of request: WebKitToolkit.URIRequest?) -> String? {
        guard let request, let method = webkit_uri_request_get_http_method(request) else { return nil }
        return String(cString: method).uppercased()
    }

    private static func url(of request: WebKitToolkit.URIRequest?) -> URL? {
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

    /// "Frame load interrupted by policy change" and "load cancelled" (WebKit's, or GIO's for a
    /// request it stopped): our own ignore decisions, or a load another one replaced. A load the
    /// page could not get fails otherwise (and a TLS refusal has its own signal).
    private static func isOwnCancellation(_ error: GLibError) -> Bool {
        let policyDomain = String(cString: g_quark_to_string(webkit_policy_error_quark()))
        let networkDomain = String(cString: g_quark_to_string(webkit_network_error_quark()))
        let gioDomain = String(cString: g_quark_to_string(g_io_error_quark()))
        return (error.domain == policyDomain
            && error.code == Int32(WEBKIT_POLICY_ERROR_FRAME_LOAD_INTERRUPTED_BY_POLICY_CHANGE.rawValue))
            || (error.domain == networkDomain && error.code == Int32(WEBKIT_NETWORK_ERROR_CANCELLED.rawValue))
            || (error.domain == gioDomain && error.code == Int32(G_IO_ERROR_CANCELLED.rawValue))
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
