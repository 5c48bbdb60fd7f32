// The caller's view is the app's the moment the `await` returns (issue 17, item 5; issue 27, item
// 2): the app loads its own page in the same continuation as the `await` (or in the completion
// handler), at once or after a `Task.yield()`, by `load_uri`, `load_html` or `load_bytes`, or loads
// nothing, after a success, a failure or a cancel, while the ended sign-in page goes on trying the
// redirect URI. Emission hooks (as an app could install) record every navigation and load of the
// view: after the resume there must be the app's and nothing else.
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
    static let appAfter: Scenario = { arguments in
        try await appAfterScenario(outcome: arguments[0], api: arguments[1], load: arguments[2], when: arguments.count > 3 ? arguments[3] : "now")
    }
}

@MainActor
func appAfterScenario(outcome: String, api: String, load: String, when: String) async throws -> ScenarioReport {
    let surface = Surface("view")
    guard let view = surface.callerView else { return ScenarioReport(error: "no caller view") }
    let log = ViewLoadLog(view: view)
    defer { log.stop() }
    let callback = try callbackListener()
    let idp = try TestServer()
    let app = try TestServer()
    let redirect = callback.url("/callback")
    // The sign-in page goes on by itself: it keeps trying the redirect URI, ended or not.
    let goesOn = "setInterval(() => { location.href = '\(redirect)?code=late&state=xyz' }, 150)"
    // Started from the first redirect's own callback: timers started with it could all be due at
    // once on a starved web process, and a later `location.href` replaces a navigation not yet
    // begun, so the page's first answer would never be tried.
    let thenGoesOn = "setTimeout(() => { \(goesOn) }, 150)"
    switch outcome {
    case "success":
        idp.route("/authorize") { _ in
            .html(Pages.scripted("Signing in", "setTimeout(() => { location.href = '\(redirect)?code=ok&state=xyz'; \(thenGoesOn) }, 100)"))
        }
    case "oauth-error":
        idp.route("/authorize") { _ in
            .html(Pages.scripted("Refused", "setTimeout(() => { location.href = '\(redirect)?error=access_denied&state=xyz'; \(thenGoesOn) }, 100)"))
        }
    default:  // "cancel", "task-cancel": the page waits, then goes on after the cancel
        idp.route("/authorize") { _ in .html(Pages.scripted("Sign in, please", "setTimeout(() => { \(goesOn) }, 400)")) }
    }
    // The app's own page: slow to answer, so the ended page has time to try.
    app.route("/app") { _ in .html(Pages.scripted("App page", "document.title = 'App page, script ran'"), delay: .milliseconds(200)) }
    let appURL = load == "uri" ? app.url("/app") : app.url("/app-\(load)")
    let appHTML = "<!doctype html><title>App page</title><h1>Signed in</h1><script>document.title = 'App page, script ran'</script>"

    var appLoadAt: ContinuousClock.Instant?
    var atResume = ScenarioReport()
    /// What the app finds when it resumes, then its load (at once, or after a yield).
    func resumed() {
        log.markResumed()
        atResume[.uriAtResume] = Probes.uri(of: view)
        atResume[.handlersAtResume] = surface.handlersLeft
        atResume[.isLoadingAtResume] = webkit_web_view_is_loading(wvh_web_view(view)) != 0
        if when == "yield" {
            Task { @MainActor in
                await Task.yield()
                showAppPage()
            }
        } else {
            showAppPage()
        }
    }
    func showAppPage() {
        appLoadAt = .now
        switch load {
        case "html":
            webkit_web_view_load_html(wvh_web_view(view), appHTML, appURL)
        case "bytes":
            let bytes = Array(appHTML.utf8)
            let data = g_bytes_new(bytes, gsize(bytes.count))
            webkit_web_view_load_bytes(wvh_web_view(view), data, "text/html", "utf-8", appURL)
            g_bytes_unref(data)
        case "none":
            break  // the app shows something else; the view must stay as the session left it
        default:
            webkit_web_view_load_uri(wvh_web_view(view), appURL)
        }
    }

    let session = WebAuthSession(redirectURI: URL(string: redirect)!, parameters: surface.parameters())
    let recorder = NotificationRecorder(session)
    var result: Result<WebAuthResponse, WebAuthError>?
    let authorizationURL = URL(string: idp.url("/authorize"))!
    let makeURL: @Sendable (URL) throws -> URL = { _ in authorizationURL }
    var task: Task<Void, Never>?
    if api == "completion" {
        session.authenticate(expectedState: "xyz", authorizationURL: makeURL) { outcome in
            result = outcome
            resumed()  // in the completion handler
        }
    } else {
        task = Task { @MainActor in
            do throws(WebAuthError) {
                result = .success(try await session.authenticate(expectedState: "xyz", authorizationURL: makeURL))
            } catch {
                result = .failure(error)
            }
            resumed()  // in the same continuation as the await
        }
    }
    if outcome == "cancel" || outcome == "task-cancel" {
        guard await recorder.waitForFinish(path: "/authorize") else {
            return recorder.pageNeverLoaded()
        }
        if outcome == "task-cancel", let task { task.cancel() } else { session.cancel() }
    }
    guard await ScenarioHost.wait(upTo: Patience.event, until: { appLoadAt != nil }), let start = appLoadAt else {
        return ScenarioReport(error: "the session never ended")
    }
    var facts = atResume
    facts[.outcome] = result.map { (try? $0.get()) != nil ? "success" : "failure" } ?? "none"
    if case .failure(let error)? = result { facts[.errorCode] = error.code.name }
    let title = { webkit_web_view_get_title(wvh_web_view(view)).map { String(cString: $0) } ?? "" }
    if load != "none" {
        // The app's page is in (its script ran): at once on an idle machine, later on a busy one.
        _ = await ScenarioHost.wait(upTo: Patience.event) { title() == "App page, script ran" }
    }
    let inAfter = ContinuousClock.now - start
    facts[.appPageInMilliseconds] = Int(inAfter.components.seconds * 1000 + inAfter.components.attoseconds / 1_000_000_000_000_000)
    let settled = ContinuousClock.now
    for (label, after) in [("1s", Duration.seconds(1)), ("2s", Duration.seconds(2))] {
        // What the person sees a second, and two, after the app's load (after its page came in, when that took longer).
        let remaining = max(after - (settled - start), .zero) - (ContinuousClock.now - settled)
        if remaining > .zero { await ScenarioHost.idle(remaining) }
        facts[.uri.suffixed(by: label)] = Probes.uri(of: view)
        facts[.title.suffixed(by: label)] = title()
        facts[.handlersLeft.suffixed(by: label)] = surface.handlersLeft
    }
    facts[.viewLoadsAfterResume] = log.afterResume
    facts[.appURL] = appURL
    facts[.redirectPortHits] = callback.requests.count
    facts[.appRequests] = app.requests(to: "/app").count
    facts[.terminalCount] = recorder.terminalCount
    return facts
}
