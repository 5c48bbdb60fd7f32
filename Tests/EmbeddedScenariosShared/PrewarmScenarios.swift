import CGLib
#if WEBKITGTK_6
import CWebKitGTK6
import EmbeddedWebviewProviderGTK4
#else
import CWebKitGTK
import EmbeddedWebviewProvider
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

let prewarmScenarios: [String: Scenario] = [
    // prewarm(keepReady:): two sign-ins in the library's window adopt prepared windows; each
    // window serves one session; a new one is ready after each; release leaves no window.
    "prewarm": { _ in
        var facts: Facts = [:]
        let callback = try callbackListener()
        let idp = try TestServer()
        // The page goes on after 1 s: time for the test to look at the window while the session
        // runs, on a loaded machine too.
        idp.route("/authorize") { request in
            .html(Pages.scripted("Sign in", "setTimeout(() => { location.href = '\(callback.url("/callback"))?code=\(request.query ?? "")&state=xyz' }, 1000)"))
        }
        facts["toplevelsBefore"] = .int(allToplevelCount())
        facts["readyBeforePrewarm"] = .bool(EmbeddedWebviewProvider.isPrewarmed())
        EmbeddedWebviewProvider.prewarm(authorityHost: "127.0.0.1", keepReady: true)
        facts["readyAfterPrewarm"] = .bool(EmbeddedWebviewProvider.isPrewarmed())
        facts["toplevelsAfterPrewarm"] = .int(allToplevelCount())
        facts["visibleAfterPrewarm"] = .int(Probes.visibleToplevels())
        await ScenarioHost.idle(.milliseconds(500))
        for round in 1...2 {
            let run = SessionRun(
                redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil),
                authorizationURL: idp.url("/authorize?round\(round)"))
            if await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview {
                facts["readyDuring\(round)"] = .bool(EmbeddedWebviewProvider.isPrewarmed())
                facts.merge(windowFacts(view, parent: nil).map { ("round\(round)." + $0.key, $0.value) }) { $1 }
                facts["round\(round).history"] = .strings(historyURIs(of: view))
            }
            let result = await run.outcome()
            facts.merge(run.facts(result, prefix: "round\(round).")) { $1 }
            facts["readyAfter\(round)"] = .bool(EmbeddedWebviewProvider.isPrewarmed())
        }
        EmbeddedWebviewProvider.releasePrewarmed()
        facts["readyAfterRelease"] = .bool(EmbeddedWebviewProvider.isPrewarmed())
        await ScenarioHost.idle(.milliseconds(300))
        facts["toplevelsAfterRelease"] = .int(allToplevelCount())
        facts["toplevelsAfterReleaseTypes"] = .strings(toplevelDescriptions())
        facts["callbackRequests"] = .int(callback.requests.count)
        return ScenarioReport(facts)
    },

    // WebAuthSession.prewarm(parameters:): the window is prepared at the session's size, realized
    // and hidden; the session adopts it and shows the page at that size.
    "prewarm-for-session": { _ in
        var facts: Facts = [:]
        let callback = try callbackListener()
        let idp = try TestServer()
        idp.route("/authorize") { _ in
            .html(Pages.scripted("Sign in", "setTimeout(() => { location.href = '\(callback.url("/callback"))?code=warm&state=xyz' }, 3000)"))
        }
        let parameters = windowParameters(parent: nil)
        facts["prewarmedBy"] = .string(WebAuthSession.prewarm(parameters: parameters, authorityHost: "127.0.0.1")?.rawValue ?? "")
        let prepared = Toolkit.toplevels().filter { gtk_widget_get_visible(wvh_widget($0)) == 0 }
        facts["hiddenWindows"] = .int(prepared.count)
        facts["hiddenRealized"] = .bool(prepared.allSatisfy { gtk_widget_get_realized(wvh_widget($0)) != 0 })
        facts["visibleAfterPrewarm"] = .int(Probes.visibleToplevels())
        await ScenarioHost.idle(.milliseconds(500))
        let run = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize"))
        if await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview {
            facts["adopted"] = .bool(Toolkit.window(of: view).map { window in prepared.contains(window) } ?? false)
            facts.merge(windowFacts(view, parent: nil)) { $1 }
            // The view's size once the window is allocated (bounded: a loaded machine is slow).
            for _ in 0..<200 where Toolkit.size(of: view).width <= 1 {
                await ScenarioHost.idle(.milliseconds(25))
            }
            facts["viewWidth"] = .int(Toolkit.size(of: view).width)
        }
        let result = await run.outcome()
        facts.merge(run.facts(result)) { $1 }
        EmbeddedWebviewProvider.releasePrewarmed()
        return ScenarioReport(facts)
    },
]
