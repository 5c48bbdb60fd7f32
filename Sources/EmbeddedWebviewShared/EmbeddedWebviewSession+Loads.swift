#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// The session's load events, before the end: `didStartLoad` and `didFinishLoad` for the loads it
/// started, a refusal of embedded agents seen in a committed page, and a failed load ending the
/// session (unless the session stopped it itself).
extension EmbeddedWebviewSession {
    /// `load-changed` while the session runs.
    func loadChanged(_ event: WebKitLoadEvent) {
        guard let webView else { return }
        // The view's URI; when a load starts in a view that has none to report yet (WebKitGTK
        // 2.50 gives "" there for a caller's view that showed `load_html` without a base URI),
        // the page it was sent to, so that `didStartLoad` is never lost.
        let current = webkit_web_view_get_uri(webView).flatMap { URL(string: String(cString: $0)) }
        guard let url = current ?? (event == WEBKIT_LOAD_STARTED ? requested : nil) else { return }
        switch event {
        case WEBKIT_LOAD_STARTED:
            loadsStarted += 1
            window?.loadStarted()
            window?.showPage(url)
            loading = url
            reporter.didStartLoad(url)
        case WEBKIT_LOAD_COMMITTED:
            pageCommitted = true
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

    /// A main-frame load failed (`load-failed` while the session runs). Loads we stopped
    /// ourselves (an ignored navigation) are not failures.
    func loadFailed(uri: String, error: GLibError?) -> Bool {
        window?.loadEnded()
        if let error, !pageCommitted, SignInLoadFailure.isCancellation(error) {
            watchCancellation(uri: uri, error: error)
            return true  // no WebKit error page: nothing may look shown while the watch waits
        }
        if let error, SignInLoadFailure.isOwnCancellation(error, pageCommitted: pageCommitted) { return false }
        if let url = URL(string: uri), request.redirectURI.matches(url) { return true }
        if let error, !pageCommitted, !reloadedOnce, SignInLoadFailure.isDroppedConnection(error), let webView, let page = authorizationPage {
            reloadedOnce = true
            // The connection dropped under the request (a proxy or server closing a kept-alive
            // connection as it was reused: "Connection terminated unexpectedly"), before anything
            // was shown: tried again once, as browsers do.
            whenIdle { [weak self] in
                guard let self, !self.ended else { return }
                self.reloadAuthorizationPage(page, in: webView)
            }
            return true
        }
        reporter.fail(certificateLoadFailure(uri: uri, error: error) ?? SignInLoadFailure.network(
            uri: uri, error: error, inCallerViewOnDefaultProxy: window == nil && !(webView.map(SignInProxy.gaveDesktopProxy(toViewOf:)) ?? false)))
        return true  // no WebKit error page: the window closes, a caller's view keeps what it showed
    }

    /// A load cancelled (WebKit's or GIO's error) before any page of the session was shown is
    /// normally one a new load replaced. WebKit also cancels a load nobody replaced: its network
    /// process aborts every request of a network session whose proxy settings change (an app's
    /// own view, or the library's window when the settings the session set reach the network
    /// process after the web process's request: two connections, no order between them; seen
    /// once in a full CI run, GTK 4), and at times it ends a refused certificate that way. The
    /// view is then idle with nothing in it, and the session would wait for ever. After
    /// ``cancellationGrace`` without a new load, the authorization page is loaded again (once:
    /// nothing was shown, so nothing the person did is lost); a second such cancellation ends
    /// the session with `network`.
    private func watchCancellation(uri: String, error: GLibError) {
        let started = loadsStarted
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: Self.cancellationGrace)
            guard let self, !self.ended, !self.pageCommitted, self.loadsStarted == started, self.question == nil,
                !self.handOverPending, let webView = self.webView, webkit_web_view_is_loading(webView) == 0,
                let page = self.authorizationPage
            else { return }
            guard self.reloadedOnce else {
                self.reloadedOnce = true
                self.reloadAuthorizationPage(page, in: webView)
                return
            }
            self.window?.loadEnded()
            self.reporter.fail(WebAuthError(
                .network,
                "The sign-in page could not be loaded: its load was cancelled twice before anything was shown (\(error.message)), and nothing replaced it. "
                    + "Check the network connection and try again.",
                url: URL(string: uri), underlyingError: error))
        }
    }

    /// The authorization page, loaded again in `webView` (the once ``reloadedOnce`` allows).
    private func reloadAuthorizationPage(_ page: URL, in webView: WebKitDifferences.WebView) {
        requested = page
        webkit_web_view_load_uri(webView, page.absoluteString)
    }

    /// How long a load cancelled before any page was shown may wait for the load that replaces it
    /// (WebKit starts it within the same turn of the web process; this covers a busy machine).
    static let cancellationGrace: Duration = .seconds(1)
}
