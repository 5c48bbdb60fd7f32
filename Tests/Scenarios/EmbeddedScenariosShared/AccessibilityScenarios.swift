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
    let parameters = WebviewParameters(webviewType: .embedded, parentWindow: WindowHandle(address: app), timeout: .seconds(60))
    let run = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize"))
    guard await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview, let window = Toolkit.window(of: view) else {
        return run.recorder.pageNeverLoaded()
    }
    // The keyboard focus comes to the page as the window is shown: wait for it. (Whether the
    // window is active is only told: on an X display without a window manager it may never be.)
    let focusInView = { gtk_window_get_focus(wvh_window(window)).map { UnsafeMutableRawPointer($0) } == view }
    _ = await ScenarioHost.wait(upTo: Patience.event) { focusInView() }
    var facts = ScenarioReport()
    facts[.focusInView] = focusInView()
    facts[.windowIsActive] = gtk_window_is_active(wvh_window(window)) != 0
    let script = Checkout.fixture("Accessibility").appendingPathComponent("atspi_tree.py").path
    #if WEBKITGTK_6
    let arguments = [script, String(getpid())]  // the page is not on the bus (WebKitGTK 6.0 with GTK 4.8)
    #else
    let arguments = [script, String(getpid()), "--wait-focus"]
    #endif
    let tree = try await ScriptRunner.run("/usr/bin/python3", arguments, timeout: 60)
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

// A sign-in by keyboard alone, with real key events (xdotool through XTest, on the scenario's
// own X display): the page's first field has the focus (the page has a link before it and no
// autofocus: the library's window focuses the first field; on the next page, autofocus on its
// second field is kept); typing fills it; Tab goes to the page's
// button, then out of the page to the header bar's buttons; Shift+Tab comes back into the page;
// F6 and Ctrl+Tab go to the header bar and back; Enter submits the form; Escape on the next
// page ends the sign-in. After each key, once it was handled (its release came through: see
// `press`), where the focus is: GTK's focus widget, and inside the page the element the page itself
// reports (its focusin, input, blur and keyup listeners write it into document.title; no script is
// run from here, which would count as a user gesture).
@MainActor
extension EmbeddedScenarios {
    static let keyboard: Scenario = { _ in try await keyboardScenario() }
}

@MainActor
func keyboardScenario() async throws -> ScenarioReport {
    let app = Probes.makeAppWindow()
    let callback = try callbackListener()
    let idp = try TestServer()
    // The title: `<key releases seen>|[blurred:]<element>[=<value>]`.
    let reporter = """
        <script>
        let releases = 0;
        function report() {
          const e = document.activeElement;
          const where = e && e !== document.body ? (e.id || e.tagName.toLowerCase()) : 'body';
          document.title = releases + '|' + (document.hasFocus() ? '' : 'blurred:') + where + (e && e.value ? '=' + e.value : '');
        }
        document.addEventListener('keyup', () => { releases++; report(); }, true);
        document.addEventListener('focusin', report); document.addEventListener('input', report);
        window.addEventListener('blur', report); window.addEventListener('focus', report); report();
        </script>
        """
    var submittedUser = ""
    idp.route("/authorize") { _ in
        .html("""
            <!doctype html><html><head><title>-</title></head><body>
            <a href="/help">Help</a>
            <form action="/password" method="get"><input type="hidden" name="flow" value="1"><label>Email address <input id="user" name="user"></label>
            <button id="next" type="submit">Next</button></form>\(reporter)</body></html>
            """)
    }
    idp.route("/password") { request in
        submittedUser = request.query?.split(separator: "&").first { $0.hasPrefix("user=") }.map { String($0.dropFirst(5)) } ?? ""
        return .html("""
            <!doctype html><html><head><title>-</title></head><body>
            <form><label>Account <input id="account" value="alice"></label>
            <label>Password <input id="password" type="password" autofocus></label></form>\(reporter)</body></html>
            """)
    }
    let parameters = WebviewParameters(webviewType: .embedded, parentWindow: WindowHandle(address: app), timeout: .seconds(90))
    let run = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize"))
    guard await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview, let window = Toolkit.window(of: view) else {
        return run.recorder.pageNeverLoaded()
    }
    let title = gtk_window_get_title(wvh_window(window)).map { String(cString: $0) } ?? ""
    /// The page's title: the key releases it saw, and where its focus is.
    func pageTitle() -> (releases: Int, place: String) {
        let text = webkit_web_view_get_title(wvh_web_view(view)).map { String(cString: $0) } ?? ""
        guard let bar = text.firstIndex(of: "|") else { return (0, text) }
        return (Int(text[..<bar]) ?? 0, String(text[text.index(after: bar)...]))
    }
    func focusInPage() -> Bool { gtk_window_get_focus(wvh_window(window)).map { UnsafeMutableRawPointer($0) } == view }
    /// Where the keyboard focus is: `page:<element>[=<value>]`, `button:<label>` (with ` (no ring)`
    /// when no focus ring shows), or GTK's type name.
    func focus() -> String {
        guard let widget = gtk_window_get_focus(wvh_window(window)).map({ UnsafeMutableRawPointer($0) }) else { return "none" }
        if widget == view {
            return "page:" + pageTitle().place
        }
        if g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(widget)), gtk_button_get_type()) != 0 {
            let label = gtk_button_get_label(UnsafeMutablePointer(OpaquePointer(widget))).map { String(cString: $0) } ?? ""
            // A button the keyboard reached shows its focus ring; "(no ring)" when GTK hides it.
            let ring = gtk_window_get_focus_visible(wvh_window(window)) != 0 ? "" : " (no ring)"
            return "button:" + label.replacingOccurrences(of: "_", with: "") + ring
        }
        var chain: [String] = []
        var current: UnsafeMutablePointer<GtkWidget>? = wvh_widget(widget)
        while let w = current { chain.append(String(cString: g_type_name(wvh_object_type(UnsafeMutableRawPointer(w))))); current = gtk_widget_get_parent(w) }
        return chain.joined(separator: "<")
    }
    // A key has been handled when its release has: the display server sends events in order, GTK
    // hands them on in order and WebKit's web process takes them in order. So once the page counted
    // a release (its keyup listener), the web process has handled the keys before it, and the
    // page's title, which carries the count, comes after what they changed (the page's focus, the
    // focus WebKit handed back to GTK). Once GTK had a release with the focus outside the page, or
    // any release of keys it took itself (pressed outside the page; F6 and Ctrl+Tab, which the
    // window takes), GTK has handled the keys before it. Then each step waits for the place it
    // expects. (Nothing is sent to find out: another key or a script would change what the page does.)
    var releases = (outsidePage: 0, all: 0)
    let releaseWatch = SignalConnections()
    Toolkit.watchKeyReleases(on: window, releaseWatch) {
        releases.all += 1
        if !focusInPage() { releases.outsidePage += 1 }
    }
    defer { releaseWatch.disconnectAll() }
    var steps: [String] = []
    /// Sends `keys` (an xdotool command: `key Tab`, `type alice`) to the sign-in window; waits
    /// until they were handled (unless `awaitRelease` is false: Enter's page goes away with its
    /// count) and the focus is where `expected` says, for ``Patience/event`` at most; records where
    /// it is.
    func press(_ keys: String, awaitRelease: Bool = true, expecting expected: (String) -> Bool) async {
        let sent = (outsidePage: releases.outsidePage, all: releases.all, page: pageTitle().releases)
        let takenByGTK = !focusInPage() || keys.hasSuffix("F6") || keys.contains("ctrl+Tab") || keys.contains("ctrl+shift+Tab")
        let status = xdotool("search --onlyvisible --name '^\(title)$' windowfocus \(keys)")
        var reached: String?
        if status == 0 {
            _ = await ScenarioHost.wait(upTo: Patience.event) {
                let handled = !awaitRelease || pageTitle().releases > sent.page || releases.outsidePage > sent.outsidePage
                    || (takenByGTK && releases.all > sent.all)
                let now = focus()
                guard handled, expected(now) else { return false }
                reached = now
                return true
            }
        }
        steps.append("\(keys) → \(status == 0 ? reached ?? focus() : "xdotool failed (\(status))")")
    }
    /// Presses `key` until the focus satisfies `goal`, `limit` times at most. Each press waits for
    /// the key to be handled and the focus to reach `goal` or to move on to a place `passing` allows.
    func press(_ key: String, untilFocus goal: (String) -> Bool, limit: Int, passing: (String) -> Bool = { _ in true }) async {
        for _ in 0..<limit where !goal(focus()) {
            let before = focus()
            await press(key, expecting: { goal($0) || ($0 != before && passing($0)) })
        }
    }
    let blurred = { (focus: String) in focus.hasPrefix("page:blurred:") }
    _ = await ScenarioHost.wait(upTo: Patience.event) { focus() == "page:user" }
    steps.append("shown → \(focus())")
    await press("type alice", expecting: { $0 == "page:user=alice" })
    // The view's editing shortcuts still work: Ctrl+A selects the field's text, typing replaces it.
    await press("key ctrl+a type bob", expecting: { $0 == "page:user=bob" })
    await press("key ctrl+a type alice", expecting: { $0 == "page:user=alice" })
    await press("key Tab", expecting: { $0 == "page:next" })
    // Out of the page to the header bar; Shift+Tab back into the page; Tab out again and around
    // into the page's first field, then to the page's button.
    await press("key Tab", untilFocus: { $0.hasPrefix("button:") }, limit: 3)
    await press("key shift+Tab", untilFocus: { $0.hasPrefix("page:") && !blurred($0) }, limit: 2, passing: { !blurred($0) })
    await press("key Tab", untilFocus: { $0.hasPrefix("button:") }, limit: 3)
    await press("key Tab", untilFocus: { $0 == "page:user=alice" }, limit: 4)
    // F6 and Ctrl+Tab: to the header bar (where Tab alone never goes on GTK 4) and back: WebKitGTK
    // 6.0 puts the focus where it was, WebKitGTK 4.1 on the page's first element (the link). The
    // page may first say where its focus was before it moves it: wait for the place itself.
    #if WEBKITGTK_6
    let back = "page:user=alice"
    #else
    let back = "page:a"
    #endif
    await press("key F6", expecting: { $0 == "button:Cancel" })
    await press("key F6", expecting: { $0 == back })
    await press("key ctrl+Tab", expecting: { $0 == "button:Cancel" })
    await press("key ctrl+shift+Tab", expecting: { $0 == back })
    await press("key Tab", untilFocus: { $0 == "page:next" }, limit: 5)
    guard focus() == "page:next" else {
        // Enter would press whatever has the focus (Cancel, say): stop here, with the steps.
        var facts = ScenarioReport()
        facts[.keyboardSteps] = steps
        facts[.outcome] = "the focus never came back to the page's button"
        Toolkit.destroyWindow(app)
        return facts
    }
    await press("key Return", awaitRelease: false, expecting: { _ in !submittedUser.isEmpty })
    _ = await run.recorder.waitForFinish(path: "/password")
    _ = await ScenarioHost.wait(upTo: Patience.event) { focus() == "page:password" }
    steps.append("next page → \(focus())")
    _ = xdotool("search --onlyvisible --name '^\(title)$' windowfocus key Escape")
    var facts = ScenarioReport()
    switch try await run.outcome() {
    case .success: facts[.outcome] = "success"
    case .failure(let error): facts[.outcome] = "\(error.code)"
    }
    facts[.keyboardSteps] = steps
    facts[.submittedUser] = submittedUser
    Toolkit.destroyWindow(app)
    return facts
}

/// A real input event, as a person's keyboard or mouse gives it (``send(_:toWindowTitled:)``).
enum InputEvent {
    /// A key press and release (xdotool's key names: `Return`, `ctrl+a`).
    case key(String)
    /// Text typed key by key.
    case type(String)
    /// A click of the first button at a point of the window (its top left corner is 0, 0).
    case click(x: Int, y: Int)
}

/// Sends `event` to the shown toplevel titled `title`, as real input (xdotool, through XTest);
/// xdotool's exit status, or -2 when the window did not get the keyboard (for a click: and its
/// place) within 10 s (scaled).
///
/// - X11 (the scenario's private Xvfb): the window is found by its name and given the focus.
/// - Wayland with input (`SCENARIO_INPUT_DISPLAY`, a Weston shown on a private Xvfb): Weston's kiosk
///   shell gives the keyboard to the window a person would be looking at (the newest, its window
///   fullscreen at 0, 0); this waits until that is `title`'s, then sends the event to Weston's
///   window, and Weston gives it to the Wayland client.
@MainActor
func send(_ event: InputEvent, toWindowTitled title: String) async -> Int32 {
    let weston = ProcessInfo.processInfo.environment["SCENARIO_INPUT_DISPLAY"]
    let actions = switch event {
    case .key(let key): "key \(key)"
    case .type(let text): "type \(text)"
    case .click(let x, let y): "mousemove \(weston == nil ? "--window %1 " : "")\(x) \(y) click 1"
    }
    guard let weston else {
        // xdotool's pattern is a regular expression in single quotes: the title's own characters, literally.
        let pattern = title.map { "\\.^$*+?()[]{}|".contains($0) ? "\\\($0)" : $0 == "'" ? "." : String($0) }.joined()
        return xdotool("search --onlyvisible --name '^\(pattern)$' windowfocus \(actions)")
    }
    // A click needs the window where the kiosk shell puts it, fullscreen at 0, 0 (until configured
    // it is elsewhere); keys need only the keyboard.
    var isClick = false
    if case .click = event { isClick = true }
    let focused = await ScenarioHost.wait(upTo: Patience.scaled(.seconds(10))) {
        Toolkit.toplevels().contains { window in
            gtk_widget_get_visible(wvh_widget(window)) != 0 && gtk_window_is_active(wvh_window(window)) != 0
                && gtk_window_get_title(wvh_window(window)).map { String(cString: $0) } == title
                && (!isClick || Toolkit.isFullscreen(window))
        }
    }
    return focused ? xdotool(actions, display: weston) : -2
}

/// Runs `xdotool <arguments>` (real input events through XTest) on `display` (by default the
/// scenario's own `DISPLAY`); its exit status.
@MainActor
func xdotool(_ arguments: String, display: String? = nil) -> Int32 {
    let arguments = display.map { "env DISPLAY=\($0) xdotool \(arguments)" } ?? "xdotool " + arguments
    var status: gint = -1
    var error: UnsafeMutablePointer<GError>?
    guard g_spawn_command_line_sync(arguments, nil, nil, &status, &error) != 0 else {
        if let error { g_error_free(error) }
        return -1
    }
    return status
}
