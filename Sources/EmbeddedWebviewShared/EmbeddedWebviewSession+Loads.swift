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
        if let error, SignInLoadFailure.isOwnCancellation(error, pageCommitted: pageCommitted) { return false }
        if let url = URL(string: uri), request.redirectURI.matches(url) { return true }
        reporter.fail(certificateLoadFailure(uri: uri, error: error) ?? SignInLoadFailure.network(
            uri: uri, error: error, inCallerViewOnDefaultProxy: window == nil && !(webView.map(SignInProxy.gaveDesktopProxy(toViewOf:)) ?? false)))
        return true  // no WebKit error page: the window closes, a caller's view keeps what it showed
    }
}
