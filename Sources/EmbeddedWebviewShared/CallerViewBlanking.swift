#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import GLibSupport
import Foundation
import WebviewHost

/// A sign-in view after its session ended, until the session's handlers go: nothing the ended
/// page does may deliver the code, and a caller's view is handed back blank.
///
/// A caller's view is stopped and its web process ended before the caller resumes
/// (``start(keeping:)``); WebKit reports the end at once, which ends the blanking: ``end()``
/// removes the session's handlers. The view loads `about:blank` once the main loop is idle, unless
/// a load started by then. Only when there was no web process to end (the page had crashed) does
/// the blanking last until the blank page or the app's own page is in (at most ``limit``): the
/// session's `decide-policy` handler asks ``decide(_:type:)``, which refuses the redirect URI,
/// windows and every navigation but `about:blank` and the app's first one. The library's window (and a caller's view that was
/// destroyed) has nothing to blank: there `view` is `nil`, only the refusals apply, and the
/// session removes its handlers itself.
///
/// Blankings under way are kept by view (``WebviewHandle``): a new session on the same view ends
/// the previous one's first (``endBlanking(of:)``), so two sessions never handle one view.
@MainActor
final class CallerViewBlanking {
    /// How long a caller's view may take to blank itself after the session before our handlers go anyway.
    static let limit: Duration = .seconds(5)
    private static var underWay: [WebviewHandle: CallerViewBlanking] = [:]

    /// The caller's view, until the blanking ended; `nil` when there is nothing to blank.
    private var view: WebKitDifferences.WebView?
    private let redirectURI: RedirectURI
    /// Called when the app's own page starts loading (no sign-in rule applies to it any more).
    private let appPageStarted: @MainActor () -> Void
    /// Called once when the blanking ends: the session removes its handlers.
    private let ended: @MainActor () -> Void
    /// The session, kept (its handlers with it) while the blanking is under way.
    private var owner: AnyObject?
    /// The view was sent to `about:blank`: its next finished load ends the blanking (not the
    /// failed load a handler that ended the session is still inside of).
    private var blankLoadStarted = false
    /// A load started on the caller's view after its page ended: no blank page is loaded over it.
    private var loadStartedSinceEnd = false
    /// The first navigation that is not our `about:blank`: the app's, let through.
    private var appNavigation: String?

    /// - Parameter view: the caller's view, or `nil` for the library's window (or a destroyed view).
    init(
        view: WebKitDifferences.WebView?, redirectURI: RedirectURI, appPageStarted: @escaping @MainActor () -> Void,
        ended: @escaping @MainActor () -> Void
    ) {
        self.view = view
        self.redirectURI = redirectURI
        self.appPageStarted = appPageStarted
        self.ended = ended
    }

    /// Ends the blanking under way on `view`, if any (a new session starts there).
    static func endBlanking(of view: WebviewHandle) {
        underWay[view]?.end()
    }

    /// Stops the caller's view and ends its page, now, before the caller resumes; the view goes
    /// to `about:blank` right after, once the main loop is idle, unless the app started a load of
    /// its own by then. The view is the app's the moment its `await` returns, and the app's first
    /// navigation wins. `owner` (the session) is kept until ``end()``.
    func start(keeping owner: AnyObject) {
        guard let view else { return }
        self.owner = owner
        Self.underWay[WebviewHandle(view)] = self
        webkit_web_view_stop_loading(view)
        // The ended page's process is ended: a page's timer that starts a navigation (even one we
        // refuse) cancels whatever load is pending, the app's included, so nothing of the ended
        // page may run on. The app's own `web-process-terminated` handlers see
        // WEBKIT_WEB_PROCESS_TERMINATED_BY_API. WebKit reports the end at once, which ends this
        // blanking (the session's handlers go): nothing is left that could deliver the code.
        webkit_web_view_terminate_web_process(view)
        // The blank page is not loaded here: its load starts a new web process, synchronously
        // (milliseconds, tens of them in WebKitGTK 6's sandbox), which the resuming caller would wait
        // for, and which an app that shows its own page right after the `await` does not need.
        // Any load started from now on (the app's, a new session's) sets `is-loading`, at once.
        let blank = GObjectWeakRef(view)
        let loads = SignalConnections()
        loads.connect(view, "notify::is-loading", .pointer { [weak self] in
            if let view = blank.get()?.pointer, webkit_web_view_is_loading(view) != 0 { self?.loadStartedSinceEnd = true }
        })
        whenIdle { [self] in
            loads.disconnectAll()
            guard !loadStartedSinceEnd, let view = blank.get()?.pointer, webkit_web_view_is_loading(view) == 0 else { return }
            webkit_web_view_load_uri(view, "about:blank")
            blankLoadStarted = true
        }
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: Self.limit)
            self?.end()
        }
    }

    /// The view shows `about:blank` or the app's page (or took too long): the session's handlers
    /// go. Calling it again does nothing.
    func end() {
        guard let view else { return }
        if Self.underWay[WebviewHandle(view)] === self { Self.underWay[WebviewHandle(view)] = nil }
        self.view = nil
        ended()
        owner = nil
    }

    /// `decide-policy` after the end: `about:blank` and the app's own navigation (the first other
    /// one, which the app started after its `await` returned) load; the redirect URI, other
    /// schemes, windows and any further navigation (the ended page's timers) are refused.
    func decide(_ decision: WebKitDifferences.PolicyDecision, type: UInt32) -> Bool {
        let request: WebKitDifferences.URIRequest?
        switch WebKitPolicyDecisionType(type) {
        case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION:
            request = SignInNavigation.request(of: decision)
        case WEBKIT_POLICY_DECISION_TYPE_RESPONSE:
            return false  // only navigations we let through get a response
        default:
            request = nil
        }
        let text = SignInNavigation.text(of: request)
        if let text, let url = URL(string: text) {
            if text == "about:blank" || text == appNavigation { return false }
            if appNavigation == nil, !redirectURI.matches(url), SignInNavigation.loadsInView(url) {
                appNavigation = text  // the app's own page, after the end
                appPageStarted()
                return false
            }
        }
        webkit_policy_decision_ignore(decision)
        return true
    }

    /// `load-changed` after the end: the blank page, or the app's own page, is in, so nothing of
    /// the ended page is left. (A blank load the app's navigation superseded also finishes,
    /// failed, while the ended page is still shown: that one does not count.)
    func loadChanged(_ event: WebKitLoadEvent) {
        let uri = view.flatMap { webkit_web_view_get_uri($0) }.map { String(cString: $0) }
        if event == WEBKIT_LOAD_FINISHED, blankLoadStarted, uri == "about:blank" { end() }
        if event == WEBKIT_LOAD_COMMITTED, appNavigation != nil { end() }
    }

    /// `load-failed` after the end: the app's own load failing is the app's business (its error
    /// page shows, `false`); any other load shows no error page (`true`).
    func loadFailed(uri: String) -> Bool {
        if let appNavigation, uri == appNavigation {
            end()
            return false
        }
        return true
    }
}
