import CGLib
#if WEBKITGTK_6
import CWebKitGTK4
import EmbeddedWebviewProviderGTK4
#else
import CWebKitGTK3
import EmbeddedWebviewProviderGTK3
#endif
import Foundation
import GLibSupport
import ScenarioSupport
import WebviewHost

/// Every toplevel GTK window, shown or not (a prewarmed window is hidden), but GTK 3's popups
/// (tooltip windows, made once a widget with a tooltip, such as a close button, was shown).
@MainActor
func allToplevelCount() -> Int {
    Toolkit.toplevels().count
}

@MainActor
func toplevelDescriptions() -> [String] {
    Toolkit.toplevels().map { widget in
        let type = String(cString: g_type_name(wvh_object_type(widget)))
        let title = gtk_window_get_title(wvh_window(widget)).map { String(cString: $0) } ?? "-"
        return "\(type) \(title) visible=\(gtk_widget_get_visible(wvh_widget(widget)))"
    }
}

/// The URIs in a view's back/forward list (what a page could go back to).
@MainActor
func historyURIs(of view: UnsafeMutableRawPointer) -> [String] {
    let list = webkit_web_view_get_back_forward_list(wvh_web_view(view))
    let back = webkit_back_forward_list_get_back_list(list)
    defer { g_list_free(back) }
    var uris: [String] = []
    var node = back
    while let current = node {
        if let item = current.pointee.data, let uri = Toolkit.uri(ofHistoryItem: item) { uris.append(uri) }
        node = current.pointee.next
    }
    return uris
}

/// Waits until every hidden sign-in window prepared ahead has loaded its blank page (its web
/// process is up): a session adopts a prepared window only then, and on a loaded machine that
/// takes seconds. Whether they all did within the deadline, and how long it took (ms).
@MainActor
func waitForPreparedWindows() async -> (loaded: Bool, milliseconds: Int) {
    let start = ContinuousClock.now
    let loaded = await ScenarioHost.wait {
        Toolkit.toplevels().filter { gtk_widget_get_visible(wvh_widget($0)) == 0 }.allSatisfy { window in
            guard let view = Probes.descendant(of: window, named: "WebKitWebView") else { return true }
            return webkit_web_view_is_loading(wvh_web_view(view)) == 0
        }
    }
    let elapsed = ContinuousClock.now - start
    return (loaded, Int(elapsed.components.seconds) * 1000 + Int(elapsed.components.attoseconds / 1_000_000_000_000_000))
}

@MainActor
extension EmbeddedScenarios {
    // prewarm(keepReady:): two sign-ins in the library's window adopt prepared windows; each
    // window serves one session; a new one is ready after each; release leaves no window.
    static let prewarm: Scenario = { _ in
        var facts = ScenarioReport()
        let callback = try callbackListener()
        let idp = try TestServer()
        // The test looks at the window while the session runs, then sends the page on itself.
        idp.route("/authorize") { _ in .html(Pages.plain("Sign in")) }
        facts[.toplevelsBefore] = allToplevelCount()
        facts[.readyBeforePrewarm] = EmbeddedWebviewProvider.isPrewarmed()
        EmbeddedWebviewProvider.prewarm(authorityHost: "127.0.0.1", keepReady: true)
        facts[.readyAfterPrewarm] = EmbeddedWebviewProvider.isPrewarmed()
        facts[.toplevelsAfterPrewarm] = allToplevelCount()
        facts[.visibleAfterPrewarm] = Probes.visibleToplevels()
        let prepared = await waitForPreparedWindows()
        facts[.preparedLoaded] = prepared.loaded
        facts[.preparedLoadMilliseconds] = prepared.milliseconds
        for round in 1...2 {
            let run = SessionRun(
                redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil),
                authorizationURL: idp.url("/authorize?round\(round)"))
            if await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview {
                facts[.readyDuring.suffixed(by: "\(round)")] = EmbeddedWebviewProvider.isPrewarmed()
                facts.merge(windowFacts(view, parent: nil).prefixed(by: "round\(round)."))
                facts[.history.prefixed(by: "round\(round).")] = historyURIs(of: view)
                Probes.evaluate("location.href = '\(callback.url("/callback"))?code=round\(round)&state=xyz'", in: view)
            } else {
                run.session.cancel()
            }
            let result = try await run.outcome()
            facts.merge(run.facts(result, prefix: "round\(round)."))
            // keepReady makes the next window a main-loop turn after the outcome; round 2 adopts it
            // once its blank page is in, as an app's next sign-in a while later would.
            _ = await ScenarioHost.wait { EmbeddedWebviewProvider.isPrewarmed() }
            facts[.readyAfter.suffixed(by: "\(round)")] = EmbeddedWebviewProvider.isPrewarmed()
            facts[.preparedLoadedAfter.suffixed(by: "\(round)")] = await waitForPreparedWindows().loaded
        }
        EmbeddedWebviewProvider.releasePrewarmed()
        facts[.readyAfterRelease] = EmbeddedWebviewProvider.isPrewarmed()
        await ScenarioHost.idle(.milliseconds(300))
        facts[.toplevelsAfterRelease] = allToplevelCount()
        facts[.toplevelsAfterReleaseTypes] = toplevelDescriptions()
        facts[.callbackRequests] = callback.requests.count
        return facts
    }

    // WebAuthSession.prewarm(parameters:): the window is prepared at the session's size, realized
    // and hidden; the session adopts it and shows the page at that size.
    static let prewarmForSession: Scenario = { _ in
        var facts = ScenarioReport()
        let callback = try callbackListener()
        let idp = try TestServer()
        // The test looks at the window, then sends the page on itself (no timer racing the checks).
        idp.route("/authorize") { _ in .html(Pages.plain("Sign in")) }
        let parameters = windowParameters(parent: nil)
        facts[.prewarmedBy] = WebAuthSession.prewarm(parameters: parameters, authorityHost: "127.0.0.1")?.rawValue ?? ""
        let prepared = Toolkit.toplevels().filter { gtk_widget_get_visible(wvh_widget($0)) == 0 }
        facts[.hiddenWindows] = prepared.count
        facts[.hiddenRealized] = prepared.allSatisfy { gtk_widget_get_realized(wvh_widget($0)) != 0 }
        facts[.visibleAfterPrewarm] = Probes.visibleToplevels()
        // A session adopts the prepared window once its blank page is in (before, it would bring
        // that load's events into the session, and gets a new window instead).
        let ahead = await waitForPreparedWindows()
        facts[.preparedLoaded] = ahead.loaded
        facts[.preparedLoadMilliseconds] = ahead.milliseconds
        let run = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize"))
        if await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview {
            facts[.adopted] = Toolkit.window(of: view).map { window in prepared.contains(window) } ?? false
            facts.merge(windowFacts(view, parent: nil))
            // The view's size once the window is allocated.
            _ = await ScenarioHost.wait { Toolkit.size(of: view).width > 1 }
            facts[.viewWidth] = Toolkit.size(of: view).width
            Probes.evaluate("location.href = '\(callback.url("/callback"))?code=warm&state=xyz'", in: view)
        } else {
            run.session.cancel()
        }
        let result = try await run.outcome()
        facts.merge(run.facts(result))
        EmbeddedWebviewProvider.releasePrewarmed()
        return facts
    }
}
