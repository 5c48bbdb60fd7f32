// The sign-in window as a screen reader and a keyboard meet it (issue 26): once the page (a
// form whose first field has `autofocus`) has loaded, what the accessibility bus says about the
// window (its role, name, states, the header bar's buttons and which object has the focus, read
// by Tests/Fixtures/Accessibility/atspi_tree.py over AT-SPI as Orca would), and where GTK has the
// keyboard focus. Then Escape, as a person presses it, ends the sign-in.
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
    static let accessibility: Scenario = { _ in try await accessibilityScenario() }
}

@MainActor
func accessibilityScenario() async throws -> ScenarioReport {
    let app = Probes.makeAppWindow()
    let callback = try callbackListener()
    let idp = try TestServer()
    idp.route("/authorize") { _ in
        .html(Pages.plain("Example sign-in", body: """
            <form><label>Email address <input id="user" name="user" autofocus></label>
            <label>Password <input id="password" name="password" type="password"></label>
            <button type="submit">Next</button></form>
            """))
    }
    let parameters = WebviewParameters(webviewType: .embedded, parentWindow: WindowHandle(app), timeout: .seconds(60))
    let run = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize"))
    guard await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview, let window = Toolkit.window(of: view) else {
        return run.recorder.pageNeverLoaded()
    }
    await ScenarioHost.idle(.milliseconds(500))
    var facts = ScenarioReport()
    facts[.focusInView] = gtk_window_get_focus(wvh_window(window)).map { UnsafeMutableRawPointer($0) } == view
    facts[.windowIsActive] = gtk_window_is_active(wvh_window(window)) != 0
    let script = Checkout.fixture("Accessibility").appendingPathComponent("atspi_tree.py").path
    let tree = try await ScriptRunner.run("/usr/bin/python3", [script, String(getpid())], timeout: 60)
    facts[.atspiTree] = tree.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    facts[.atspiError] = tree.standardError
    Toolkit.pressKey(UInt32(GDK_KEY_Escape), on: window)
    switch try await run.outcome() {
    case .success: facts[.outcome] = "success"
    case .failure(let error): facts[.outcome] = "\(error.code)"
    }
    Toolkit.destroyWindow(app)
    return facts
}
