#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import SecurityKeys
import WebviewHost

/// One sign-in in a `WebKitWebView`: the library's own window, or the caller's view.
///
/// Bridges WebKit to the host: a navigation to the redirect URI is ignored in `decide-policy`
/// (the callback never reaches the network) and reported; windows a page opens stay in the view;
/// other schemes are handed on only as the ``ExternalSchemePolicy`` allows; load, TLS and
/// web-process failures end the session. At the end, a caller's view is stopped and its page's
/// web process ended before the handlers go (see ``dismiss()``), so nothing the page does later
/// can deliver the code.
///
/// This file sets the session up, wires WebKit's signals and tears it down; the jobs are
/// elsewhere: navigation decisions (`+Navigation`), load events (`+Loads`), the move to the
/// browser (`+BrowserHandOver`), servers' challenges (`+Authenticate`), failures
/// (``SignInLoadFailure``) and other apps (``ExternalAppLaunch``).
@MainActor
final class EmbeddedWebviewSession: WebviewProviderSession {
    let request: WebAuthRequest
    let reporter: WebAuthSessionReporter
    let connections = SignalConnections()
    private(set) var window: SignInWindow?
    /// The view: the window's, or the caller's (lent: the app owns it).
    private(set) var webView: WebKitDifferences.WebView?
    /// The session was dismissed: the library's window refuses every navigation until it is
    /// destroyed; a caller's view has no handler of the session's any more.
    private(set) var dismissed = false
    /// The page whose load started and has not finished yet.
    var loading: URL?
    /// A page of the session's has been committed (shown) in the view: from then on, the page's
    /// own navigations can replace a load.
    var pageCommitted = false
    /// The page the view was last sent to load (the authorization URL, then each navigation let
    /// into the view): what a load is of while the view reports no URI for it (a caller's view
    /// that showed `load_html` without a base URI reports "" at the start of the next load).
    var requested: URL?
    /// How many loads have started in the view during the session (``EmbeddedWebviewSession/loadFailed(uri:error:)``
    /// tells by it whether a cancelled load was replaced).
    var loadsStarted = 0
    /// The authorization URL the session was presented with.
    var authorizationPage: URL?
    /// The authorization page was loaded again once, before anything was shown: after a
    /// cancellation nobody replaced, or a dropped connection (see `+Loads`).
    var reloadedOnce = false
    /// The caller view's `javascript-can-open-windows-automatically` before the session, restored at the end.
    private var callerCouldOpenWindows: gboolean?
    /// The caller view's back/forward list before the session, put back at the end.
    private var callerHistory: CallerViewHistory?
    /// The question shown before a foreign scheme is handed on (library's window only), or before
    /// the sign-in moves to the browser.
    var question: SignInQuestion?
    /// Watches the page for WebAuthn calls and refusals of embedded agents.
    private(set) var pageWatch: SignInPageWatch?
    /// The Web Authentication API answered with the person's security keys (top frame), when on.
    private var webAuthn: WebAuthnBridge?
    /// A hand-over to the browser was asked for and not declined: the page's later triggers wait.
    var handOverPending = false
    /// The caller destroyed its view during the session: there is nothing left to stop or blank.
    private var callerViewDestroyed = false
    /// The view made a sign-in surface, not a browser, for the session (see ``SignInSurface``).
    private var surface: SignInSurface?
    /// The desktop's light/dark preference set for the library's window, put back at the end.
    private var appearance: SignInAppearance?
    /// The sign-in cookies put in the view's store for the session, taken out at the end.
    private var signInCookies: SignInCookieJar?
    /// `PKeyAuth/1.0` in the view's user agent for the session, taken out at the end.
    private var deviceChallengeAdvertisement: PKeyAuthAdvertisement?
    /// The method of the last navigation let into the view (a 401 device challenge is answered for GET only).
    var lastNavigationMethod: String?
    /// The pages whose 401 device challenge was answered (once each).
    var deviceChallengeAnswered: Set<URL> = []
    /// The client certificate the app gave, loaded in ``prepare()`` (see `ClientCertificates`).
    var clientCertificates = ClientCertificates()
    /// The library's window's store when the app gave a client certificate: made for this session
    /// (its certificate is its identity), retired at its end (see ``SignInWebContexts``).
    private var sessionStore: WebKitDifferences.DataStore?
    /// The provider's settings and the toolkit as they were in the task that made the session:
    /// what its callbacks, which run in no task, read (see ``SessionSettings``).
    let settings: SessionSettings

    /// Made in the task that starts the session, which it takes its ``settings`` from.
    init(request: WebAuthRequest, reporter: WebAuthSessionReporter) {
        self.request = request
        self.reporter = reporter
        settings = SessionSettings()
    }

    private var usesCustomWebview: Bool { request.parameters.customWebview != nil }

    func prepare() async throws -> URL {
        clientCertificates = try ClientCertificates(given: request.parameters.clientCertificate)
        // In a Flatpak the desktop's proxy is a D-Bus call away: asked here, before a store is
        // made or given its route, so that nothing below waits on it on the main thread (and a
        // caller's view's failure can say what the app can do about a password in it).
        await SignInProxy.lookUpDesktopAhead()
        if let custom = request.parameters.customWebview {
            try ClientCertificates.checkCallerView(wvh_web_view(custom.address), given: request.parameters.clientCertificate)
        } else if request.parameters.clientCertificate != nil, !dismissed {
            sessionStore = SignInWebContexts.makeSessionStore()
        }
        if !usesCustomWebview, request.parameters.prefersEphemeralWebBrowserSession {
            try await SignInWebContexts.resetEphemeral()
        }
        if !usesCustomWebview { await SignInAppearance.readDesktopPreference(follows: settings.followsDesktopColorScheme) }
        try await installSignInCookies()
        // The route the first page takes is in place in WebKit's network process before it loads:
        // the library's window's (the app's proxy or the desktop's, set on the shared context
        // here), or what the app gave its own view (useDesktopProxy(in:)).
        if let custom = request.parameters.customWebview {
            await SignInProxy.settle(WebKitDifferences.store(of: wvh_web_view(custom.address)))
        } else if !dismissed {
            let store = sessionStore ?? SignInWebContexts.context(
                ephemeral: request.parameters.prefersEphemeralWebBrowserSession, applicationID: settings.applicationID)
            SignInProxy.apply(request.parameters.networkProxy, to: store)
            await SignInProxy.settle(store)
        }
        return request.redirectURI.url
    }

    /// Puts ``WebviewHost/WebviewParameters/signInCookies`` in the store the first page loads
    /// from: the library's context for the session, or a caller's view's own store when the app
    /// allowed it (``WebviewHost/WebviewParameters/signInCookiesInCustomWebview``).
    private func installSignInCookies() async throws {
        let parameters = request.parameters
        guard !parameters.signInCookies.isEmpty else { return }
        let manager: WebKitDifferences.CookieManager
        if let custom = parameters.customWebview {
            guard parameters.signInCookiesInCustomWebview else { return }
            manager = WebKitDifferences.cookieManager(ofView: wvh_web_view(custom.address))
        } else {
            manager = WebKitDifferences.cookieManager(
                of: sessionStore ?? SignInWebContexts.context(ephemeral: parameters.prefersEphemeralWebBrowserSession, applicationID: settings.applicationID))
        }
        let jar = try await SignInCookieJar.install(parameters.signInCookies, in: manager)
        if dismissed {
            jar.remove()  // the session ended while they were being added
        } else {
            signInCookies = jar
        }
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
        let view: WebKitDifferences.WebView
        if let custom = request.parameters.customWebview {
            view = wvh_web_view(custom.address)
            callerHistory = CallerViewHistory(of: view)
            // Windows a page opens without a gesture (a timer's window.open, a script's click on a
            // target=_blank link) are dropped by WebKit's popup blocker before any signal: let them
            // reach `create`, which keeps them in this view. The caller's value comes back at the end.
            let settings = webkit_web_view_get_settings(view)
            callerCouldOpenWindows = webkit_settings_get_javascript_can_open_windows_automatically(settings)
            webkit_settings_set_javascript_can_open_windows_automatically(settings, 1)
        } else {
            // A window made ahead of time (prewarm) when one waits, else a new one.
            let ephemeral = request.parameters.prefersEphemeralWebBrowserSession
            // This session's route (the app's proxy or the desktop's) was set and settled in prepare().
            let context = sessionStore ?? SignInWebContexts.context(ephemeral: ephemeral, applicationID: settings.applicationID)
            let prewarmed = sessionStore == nil ? PrewarmedWindows.take(ephemeral: ephemeral, applicationID: settings.applicationID) : nil
            let window = prewarmed ?? SignInWindow(context: context)
            window.configure(parameters: request.parameters) { [weak self] in
                self?.reporter.fail(.userCanceled())
            }
            self.window = window
            view = window.webView
            appearance = SignInAppearance.applyForWindow(follows: settings.followsDesktopColorScheme)
        }
        webView = view
        reporter.setWebview(WebviewHandle(address: view))
        attachHandlers(to: view)
        surface = SignInSurface.apply(to: view, allowed: settings.allowedPermissions)
        if request.parameters.advertisesDeviceChallenge { deviceChallengeAdvertisement = PKeyAuthAdvertisement(on: view) }
        let canHandOver = reporter.canHandOverToSystemBrowser
        let parameters = request.parameters
        // Only with a key there when the session starts (or a test's virtual authenticator): with
        // none, a page's WebAuthn call moves the sign-in to the browser as before, where a phone or
        // a platform passkey can answer.
        let answersWebAuthn = parameters.securityKeys && (!usesCustomWebview || parameters.securityKeysInCustomWebview)
            && !SecurityKeyDevice.connected().isEmpty
        if answersWebAuthn {
            let parent = window?.window ?? WebKitDifferences.toplevelWindow(of: view)
            webAuthn = WebAuthnBridge(view: view) { cancelled in SecurityKeyQuestions(over: parent, cancelled: cancelled) }
        }
        pageWatch = SignInPageWatch(
            view: view, advertisesWebAuthn: canHandOver && !answersWebAuthn, answersWebAuthnInTopFrame: answersWebAuthn,
            refusals: request.parameters.embeddedAgentRefusals, focusesFirstField: !usesCustomWebview
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
        authorizationPage = authorizationURL
        webkit_web_view_load_uri(view, authorizationURL.absoluteString)
        window?.show()
    }

    /// Ends the session's hold on the view, before the caller resumes. The library's window is
    /// hidden (and destroyed once the main loop is idle; until then its handlers refuse every
    /// navigation). A caller's view is stopped and its page's web process ended: the page's
    /// scripts and timers die with it, so a page that goes on (to the redirect URI, say) after a
    /// cancel, a timeout or a failure cannot deliver the code, and a late redirect after a success
    /// cannot either. Its back/forward list is put back as it was before the session (no sign-in
    /// page stays in the app's history). Then the caller's settings are put back and every handler of the session is
    /// disconnected: the view is the app's when the caller resumes, and the library never touches
    /// it again (no load of its own: the view keeps the ended page's last picture, with `uri`
    /// `""`, until the app loads something).
    func dismiss() {
        guard !dismissed else { return }
        dismissed = true
        let view = webView
        let callerView = usesCustomWebview && !callerViewDestroyed ? view : nil
        if let callerView {
            // First: nothing of the page may run on while the rest is put back. WebKit emits
            // `web-process-terminated` (TERMINATED_BY_API) at once; the app's own handlers see it.
            webkit_web_view_stop_loading(callerView)
            webkit_web_view_terminate_web_process(callerView)
            // The sign-in pages leave the app's history: "back" cannot reach one.
            callerHistory?.restore(to: callerView)
        }
        callerHistory?.release()
        callerHistory = nil
        question?.destroy()
        question = nil
        // A proxy's question over the library's window goes with it (answered as Cancel).
        if let window { ProxyPasswordQuestion.cancel(over: window.window) }
        signInCookies?.remove()
        signInCookies = nil
        pageWatch?.stop()
        pageWatch = nil
        webAuthn?.stop()
        webAuthn = nil
        window?.offerContinueInBrowser(nil)
        appearance?.restore()
        appearance = nil
        if let view, let callerCouldOpenWindows, !callerViewDestroyed {
            webkit_settings_set_javascript_can_open_windows_automatically(webkit_web_view_get_settings(view), callerCouldOpenWindows)
            surface?.restoreSettings()
            deviceChallengeAdvertisement?.restore()
        }
        if let window {
            webkit_web_view_stop_loading(window.webView)
            // Out of sight now, and until it goes our handlers refuse every navigation (the page is
            // stopped, but its timers may still try the redirect URI). Destroyed, the view and its
            // page with it, once the main loop is idle, after the resumed caller ran: destroying a
            // web view takes milliseconds nobody needs to wait for.
            window.hide()
            self.window = nil
            webView = nil
            let ephemeral = request.parameters.prefersEphemeralWebBrowserSession
            let applicationID = settings.applicationID
            if sessionStore == nil, !clientCertificates.offeredTo.isEmpty {
                // A certificate was offered in the shared store: its connections (and the token
                // logged in through them) must not serve the next session.
                SignInWebContexts.retire(ephemeral: ephemeral, applicationID: applicationID)
            } else if sessionStore == nil, request.parameters.networkProxy != nil {
                SignInProxy.apply(nil, to: SignInWebContexts.context(ephemeral: ephemeral, applicationID: applicationID))
            }
            retireSessionStore()
            whenIdle { [self] in
                surface?.end()
                connections.disconnectAll()
                window.destroy()
                SignInWebContexts.tightenPersistentFolders(applicationID: applicationID)
                PrewarmedWindows.sessionEnded(ephemeral: ephemeral, applicationID: applicationID)
            }
            return
        }
        retireSessionStore()
        // A caller's view (or one the caller destroyed): nothing of the session stays on it; the
        // certificate it offered marks the view's store (see ClientCertificates.checkCallerView).
        if let callerView, !clientCertificates.offeredTo.isEmpty {
            ClientCertificates.markCallerView(callerView, identity: clientCertificates.identity)
        }
        removeHandlers()
    }

    /// Closes the connections of the session's own store and lets it go (its window, destroyed
    /// later, holds it until then). Before the caller resumes: the next session's handshakes come after.
    private func retireSessionStore() {
        guard let store = sessionStore else { return }
        sessionStore = nil
        SignInWebContexts.retire(store)
    }

    /// Disconnects every handler the session connected to the view.
    private func removeHandlers() {
        surface?.end()
        connections.disconnectAll()
        webView = nil
    }

    /// Whether the session has its outcome: from the report that ended it until the host's
    /// ``dismiss()`` (on the next main-loop turn, before the caller resumes), the handlers act as
    /// after the dismissal (every navigation and window refused, nothing reported).
    var ended: Bool { dismissed || reporter.isFinished }

    // MARK: - WebKit signals

    /// Connects the session's handlers to `view`. After the end only the library's window still
    /// has them (until it is destroyed): they refuse every navigation and show no error page.
    private func attachHandlers(to view: WebKitDifferences.WebView) {
        // HTTP authentication: which requests the session answers (EmbeddedWebviewSession+Authenticate.swift).
        connections.connect(view, "authenticate", .pointerReturningBool { [weak self] (request: WebKitDifferences.AuthenticationRequest?) in
            guard let self, !self.ended, let request else { return false }
            return self.authenticate(request)
        })
        connections.connect(view, "decide-policy", .decidePolicy { [weak self] (decision: WebKitDifferences.PolicyDecision?, type) in
            guard let self, let decision else { return false }
            if self.ended { return Self.refuseAfterEnd(decision, type: type) }
            return self.decidePolicy(decision, type: type)
        })
        connections.connect(view, "create", .create { [weak self] (action: WebKitDifferences.NavigationAction?) -> WebKitDifferences.Widget? in
            // window.open, target=_blank and friends: never a new window.
            guard let self, !self.ended, let action else { return nil }
            let request = webkit_navigation_action_get_request(action)
            if let url = SignInNavigation.url(of: request) {
                self.openNewWindowRequest(
                    url, text: SignInNavigation.text(of: request),
                    isUserGesture: webkit_navigation_action_is_user_gesture(action) != 0)
            }
            return nil
        })
        connections.connect(view, "load-changed", .enumValue { [weak self] event in
            guard let self else { return }
            if self.ended { return }
            self.loadChanged(WebKitLoadEvent(event))
        })
        connections.connect(view, "load-failed", .loadFailed { [weak self] _, uri, error in
            guard let self else { return false }
            if self.ended { return true }  // no error page in a window on its way out
            return self.loadFailed(uri: uri, error: error)
        })
        connections.connect(view, "load-failed-with-tls-errors", .loadFailedWithTLSErrors { [weak self] uri, _, errors in
            self?.window?.loadEnded()
            self?.reporter.fail(SignInLoadFailure.tls(uri: uri, errors: errors))
            return true
        })
        connections.connect(view, "web-process-terminated", .enumValue { [weak self] reason in
            if self?.ended ?? true { return }
            self?.window?.loadEnded()
            self?.reporter.fail(SignInLoadFailure.webProcessTerminated(reason: reason))
        })
    }

    /// `decide-policy` in the library's window after the end: every navigation and new window is
    /// refused (the ended page's timers may still try the redirect URI); a response is left alone.
    private static func refuseAfterEnd(_ decision: WebKitDifferences.PolicyDecision, type: UInt32) -> Bool {
        guard WebKitPolicyDecisionType(type) != WEBKIT_POLICY_DECISION_TYPE_RESPONSE else { return false }
        webkit_policy_decision_ignore(decision)
        return true
    }
}
