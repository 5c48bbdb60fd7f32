// The sign-in pages leave the caller view's history when the session ends: the app's page shown
// before the sign-in (or none) is what "back" reaches, never the authorization page, which with
// the provider's session would sign in again by itself and go to the redirect URI where nothing
// of the ended session listens (here: its own timer does exactly that).
import CGLib
#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import Foundation
import GLibSupport
import ScenarioSupport
import WebviewHost

@MainActor
extension EmbeddedScenarios {
    /// Arguments: the outcome (`success`, `cancel`), and what the view showed before (`fresh`: nothing, `start`: the app's page).
    static let appAfterHistory: Scenario = { arguments in
        try await appAfterHistoryScenario(outcome: arguments[0], before: arguments[1])
    }
}

@MainActor
func appAfterHistoryScenario(outcome: String, before: String) async throws -> ScenarioReport {
    let surface = Surface("view")
    guard let callerView = surface.callerView else { return ScenarioReport(error: "no caller view") }
    let view = wvh_web_view(callerView)
    let callback = try callbackListener()
    let idp = try TestServer()
    let app = try TestServer()
    let redirect = callback.url("/callback")
    // The authorization page signs in by itself, from its own timer (as one does with the
    // provider's session cookie); the one to cancel waits a while first.
    let delay = outcome == "success" ? 100 : 1500
    idp.route("/authorize") { _ in
        .html(Pages.scripted("Signing in", "setTimeout(() => { location.href = '\(redirect)?code=ok&state=xyz' }, \(delay))"))
    }
    app.route("/start") { _ in .html(Pages.scripted("Start page", "document.title = 'Start page, script ran'")) }
    app.route("/app") { _ in .html(Pages.scripted("App page", "document.title = 'App page, script ran'")) }
    let title = { webkit_web_view_get_title(view).map { String(cString: $0) } ?? "" }
    if before == "start" {
        webkit_web_view_load_uri(view, app.url("/start"))
        guard await ScenarioHost.wait(upTo: Patience.event, until: { title() == "Start page, script ran" }) else {
            return ScenarioReport(error: "the app's start page never loaded")
        }
    }
    /// The back items' addresses (in WebKit's order), then the current item's.
    func history() -> [String] {
        let list = webkit_web_view_get_back_forward_list(view)
        var entries: [String] = []
        var back = webkit_back_forward_list_get_back_list(list)
        let head = back
        while let node = back {
            #if WEBKITGTK_6
            let item = node.pointee.data.map { OpaquePointer($0) }  // an opaque type in WebKitGTK 6.0
            #else
            let item = node.pointee.data?.assumingMemoryBound(to: WebKitBackForwardListItem.self)
            #endif
            if let item, let uri = webkit_back_forward_list_item_get_uri(item) {
                entries.append(String(cString: uri))
            }
            back = node.pointee.next
        }
        g_list_free(head)
        if let current = webkit_back_forward_list_get_current_item(list), let uri = webkit_back_forward_list_item_get_uri(current) {
            entries.append("current " + String(cString: uri))
        }
        return entries
    }

    let session = WebAuthSession(redirectURI: URL(string: redirect)!, parameters: surface.parameters())
    let recorder = NotificationRecorder(session)
    let authorizationURL = URL(string: idp.url("/authorize"))!
    var facts = ScenarioReport()
    var resumed = false
    let task = Task { @MainActor in
        do throws(WebAuthError) {
            _ = try await session.authenticate(expectedState: "xyz") { _ in authorizationURL }
            facts[.outcome] = "success"
        } catch {
            facts[.outcome] = "failure"
            facts[.errorCode] = error.code.name
        }
        // What the app finds, then its own page, in the same continuation.
        facts[.historyAtResume] = history()
        resumed = true
        webkit_web_view_load_uri(view, app.url("/app"))
    }
    if outcome == "cancel" {
        guard await recorder.waitForFinish(path: "/authorize") else { return recorder.pageNeverLoaded() }
        session.cancel()
    }
    await task.value
    guard resumed, await ScenarioHost.wait(upTo: Patience.event, until: { title() == "App page, script ran" }) else {
        return ScenarioReport(error: "the app's page never loaded after the sign-in")
    }
    facts[.historyAfterAppPage] = history()
    // The person goes back (a mouse's back button, a swipe, the app's own button).
    if webkit_web_view_can_go_back(view) != 0 {
        webkit_web_view_go_back(view)
        // Another page, loaded (the app's start page, a blank one, or a sign-in page that goes on).
        let appURL = app.url("/app")
        _ = await ScenarioHost.wait(upTo: Patience.event) {
            !["", appURL].contains(Probes.uri(of: callerView)) && webkit_web_view_is_loading(view) == 0
        }
        // A moment more for a page that would go on by itself (the authorization page's timer: 100 ms).
        await ScenarioHost.idle(.seconds(1))
        facts[.uriAfterBack] = Probes.uri(of: callerView)
        facts[.titleAfterBack] = title()
    } else {
        facts[.uriAfterBack] = ""
        facts[.titleAfterBack] = ""
    }
    facts[.appURL] = app.url("/app")
    facts[.authorizeRequests] = idp.requests(to: "/authorize").count
    facts[.redirectPortHits] = callback.requests.count
    return facts
}
