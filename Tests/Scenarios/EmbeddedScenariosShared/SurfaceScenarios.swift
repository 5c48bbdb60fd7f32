// Scenarios for the sign-in surface (issue 17, item 4): a page tries, from its own timers or after
// a real click (xdotool, X11), what a browser would let it do (save a download, ask for a
// permission, show a dialog, a print or file chooser, go fullscreen...). Each page then goes on
// to the redirect URI by itself: the session must end with success, with nothing granted,
// written or shown. The page reports what its calls returned to `/report`.
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

/// The content every download the pages offer carries: found anywhere on disk, a download was saved.
let downloadMarker = "WVH-DOWNLOAD-MARKER-7f3a"

@MainActor
extension EmbeddedScenarios {
    static let surface: Scenario = { arguments in try await surfaceScenario(mode: arguments[0], kind: arguments[1]) }
}

/// The marker as a script expression that does not contain it (the page itself is cached on disk).
private let jsMarker = "'" + downloadMarker.dropLast(4) + "' + '" + downloadMarker.suffix(4) + "'"

/// A page whose script runs `attempt` (JavaScript that fills the object `r` and may return a
/// promise) from a timer, or from the first click when `onClick`, reports `r` to `/report`, then
/// goes to `code` after `settle` milliseconds.
private func surfacePage(_ attempt: String, code: String, onClick: Bool = false, settle: Int = 1200, body: String = "") -> String {
    let run = """
        const r = {};
        const go = async () => {
          try { await (async () => { \(attempt) })(); } catch (e) { r.error = String(e); }
          // WebKit stops the page's loads in flight (this fetch) when a navigation becomes a
          // download, in any WebKit browser: the page goes on from its timer whatever the fetch does.
          setTimeout(() => { location.href = '\(code)'; }, \(settle));
          setInterval(() => fetch('/tick').catch(() => {}), 250);
          fetch('/report?' + new URLSearchParams(r)).catch(() => {});
        };
        """
    let trigger = onClick
        ? "let started = false; addEventListener('mousedown', () => { if (!started) { started = true; go(); } }, true); requestAnimationFrame(() => setTimeout(() => fetch('/ready'), 100));"
        : "setTimeout(go, 200);"
    return """
        <!doctype html><html><head><title>Surface</title><style>
        html, body { margin: 0; height: 100%; } #target { position: fixed; inset: 0; width: 100%; height: 100%; }
        </style></head><body>\(body)<script>\(run)\(trigger)</script></body></html>
        """
}

/// Waits for a settled promise with a limit, so a call WebKit never answers cannot hold the page.
private let within = "const within = (p, ms = 2000) => Promise.race([p, new Promise((_, no) => setTimeout(() => no(new Error('no answer')), ms))]);"

@MainActor
func surfaceScenario(mode: String, kind: String) async throws -> ScenarioReport {
    let surface = Surface(mode)
    if let window = surface.callerWindow { gtk_window_set_title(wvh_window(window), "Caller window") }
    let callback = try callbackListener()
    let idp = try TestServer()
    let redirect = callback.url("/callback")
    let code = "\(redirect)?code=\(kind)&state=xyz"
    var facts = ScenarioReport()
    facts[.mode] = mode
    facts[.kind] = kind
    var parameters = surface.parameters(timeout: .seconds(60))  // a page that holds the view ends as timedOut
    var click: Int?  // the X button a real click presses once the page is ready
    idp.route("/report") { _ in .html("ok") }
    idp.route("/ready") { _ in .html("ok") }
    let file = { (name: String, type: String, disposition: Bool) -> TestServer.Response in
        var response = TestServer.Response(contentType: type, body: downloadMarker + " " + name)
        if disposition { response.headers = [("Content-Disposition", "attachment; filename=\"wvh-\(name).txt\"")] }
        return response
    }
    idp.route("/attachment") { _ in file("attachment", "text/plain", true) }
    idp.route("/html-attachment") { _ in file("html-attachment", "text/html", true) }
    idp.route("/octet") { _ in file("octet", "application/octet-stream", false) }
    idp.route("/anchor") { _ in file("anchor", "text/plain", false) }

    let page: String
    switch kind {
    case "download-attachment":  // a navigation to a Content-Disposition: attachment response
        page = surfacePage("location.href = '/attachment';", code: code)
    case "download-html-attachment":  // the same, with a type the view could show
        page = surfacePage("location.href = '/html-attachment';", code: code)
    case "download-type":  // a navigation to a type the view does not show
        page = surfacePage("location.href = '/octet';", code: code)
    case "download-iframe":  // a hidden frame loading an attachment
        page = surfacePage(
            "const f = document.createElement('iframe'); f.style.display = 'none'; f.src = '/attachment'; document.body.append(f);",
            code: code)
    case "download-anchor":  // <a download> clicked by the page's own script
        page = surfacePage(
            "const a = document.createElement('a'); a.href = '/anchor'; a.download = 'wvh-anchor.txt'; document.body.append(a); a.click();",
            code: code)
    case "download-blob":
        page = surfacePage(
            "const a = document.createElement('a'); a.href = URL.createObjectURL(new Blob([\(jsMarker) + ' blob'], {type: 'text/plain'})); a.download = 'wvh-blob.txt'; document.body.append(a); a.click();",
            code: code)
    case "download-data":
        page = surfacePage(
            "const a = document.createElement('a'); a.href = 'data:application/octet-stream,' + encodeURIComponent(\(jsMarker) + ' data'); a.download = 'wvh-data.txt'; document.body.append(a); a.click();",
            code: code)
    case "permissions", "permissions-allow-notifications", "permissions-click", "permissions-click-allow-notifications",
        "permissions-click-isolated":  // notifications allowed in an isolated scope only (below)
        if kind.hasSuffix("allow-notifications") { EmbeddedWebviewProvider.allowedPermissions = [.notifications] }
        let onClick = kind.contains("click")
        if onClick { click = 1 }
        page = surfacePage(
            within + """
                r.geolocation = await within(new Promise(ok => navigator.geolocation.getCurrentPosition(() => ok('granted'), e => ok('error ' + e.code)))).catch(e => String(e));
                r.notifications = await within(Notification.requestPermission()).catch(e => String(e));
                r.notificationPermission = Notification.permission;
                for (const name of ['geolocation', 'notifications', 'camera', 'microphone']) {
                  r['query-' + name] = await within(navigator.permissions.query({name})).then(s => s.state, e => 'rejected');
                }
                r.mediaDevices = navigator.mediaDevices ? await within(navigator.mediaDevices.getUserMedia({audio: true, video: true})).then(() => 'granted', e => 'refused ' + e.name) : 'absent';
                r.clipboard = navigator.clipboard ? await within(navigator.clipboard.readText()).then(() => 'read', e => 'refused ' + e.name) : 'absent';
                r.storageAccess = document.requestStorageAccess ? await within(document.requestStorageAccess()).then(() => 'granted', e => 'refused') : 'absent';
                if (Notification.permission === 'granted') { new Notification('Hello from the page'); }
                """,
            code: code, onClick: onClick, body: onClick ? "<div id='target'></div>" : "")
    case "dialogs":  // alert, confirm and prompt from a timer: never shown, never blocking
        page = surfacePage(
            "alert('alert from the page'); r.confirm = String(confirm('confirm?')); r.prompt = String(prompt('prompt?', 'default'));",
            code: code)
    case "beforeunload":  // a page that asks to stay when left: it cannot hold the view
        page = surfacePage(
            "addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = 'stay'; return 'stay'; }); r.armed = 'yes';",
            code: code, settle: 300)
    case "print":
        page = surfacePage("window.print(); r.printed = 'returned';", code: code)
    case "fullscreen-click":  // a real click on a page that asks for fullscreen
        click = 1
        page = surfacePage(
            within + "r.fullscreen = await within(document.documentElement.requestFullscreen()).then(() => 'entered', e => 'refused ' + e.name); r.element = String(document.fullscreenElement);",
            code: code, onClick: true, body: "<div id='target'></div>")
    case "file-chooser-click":  // a real click on a file input
        click = 1
        page = surfacePage("r.clicked = 'yes';", code: code, onClick: true, settle: 1500, body: "<input id='target' type='file'>")
    case "color-chooser-click":  // a real click on a color input
        click = 1
        page = surfacePage("r.clicked = 'yes';", code: code, onClick: true, settle: 1500, body: "<input id='target' type='color'>")
    case "pointer-lock-click":
        click = 1
        page = surfacePage(
            within + "r.pointerLock = await within(Promise.resolve(document.documentElement.requestPointerLock())).then(() => String(document.pointerLockElement), e => 'refused ' + e.name);",
            code: code, onClick: true, body: "<div id='target'></div>")
    case "context-menu-click":  // a real right click on the page
        click = 3
        page = surfacePage("r.clicked = 'yes';", code: code, onClick: true, settle: 1500, body: "<div id='target'>Sign in</div>")
    case "context-menu-field-click":  // a real right click in a text field: editing items only
        click = 3
        page = surfacePage(
            "r.clicked = 'yes';", code: code, onClick: true, settle: 1500,
            body: "<input id='target' value='alice@example.com' style='font-size: 40px'>")
    case "ephemeral-storage":  // a page that stores everything it can, in an ephemeral session
        parameters.prefersEphemeralWebBrowserSession = true
        page = surfacePage(
            within + """
                const attempt = async (name, f) => { try { await within(Promise.resolve(f())); r[name] = 'stored'; } catch (e) { r[name] = 'failed ' + e; } };
                await attempt('cookie', () => { document.cookie = 'sid=1; max-age=3600'; });
                await attempt('localStorage', () => localStorage.setItem('k', 'v'));
                await attempt('indexedDB', () => new Promise((ok, no) => { const q = indexedDB.open('db', 1); q.onupgradeneeded = () => q.result.createObjectStore('s'); q.onsuccess = ok; q.onerror = no; }));
                await attempt('cacheStorage', () => caches.open('c').then(c => c.put('/x', new Response('y'))));
                r.stored = 'yes';
                """,
            code: code)
    default:
        return ScenarioReport(error: "unknown surface kind \(kind)")
    }
    idp.route("/authorize") { _ in .html(page) }

    // An app whose view has the inspector on: it must be off for the sign-in and on again afterwards.
    if let view = surface.callerView { webkit_settings_set_enable_developer_extras(webkit_web_view_get_settings(wvh_web_view(view)), 1) }
    facts[.settingsBefore] = surfaceSettings(of: surface.callerView)
    let signalsBefore = signalsWithHandlers(surface.callerView)
    let run: SessionRun
    if kind == "permissions-click-isolated" {
        // The session starts in a scope that allows notifications, which then allows none again:
        // the page asks later, from WebKit's signal (no task), and gets what the session started with.
        run = await WebviewProviderRegistry.withIsolatedRegistry {
            WebviewProviderRegistry.register(EmbeddedWebviewProvider())
            EmbeddedWebviewProvider.allowedPermissions = [.notifications]
            let run = SessionRun(redirectURI: redirect, parameters: parameters, authorizationURL: idp.url("/authorize"))
            _ = await run.recorder.wait(for: Patience.event) { $0.name == "didStartLoad" }
            EmbeddedWebviewProvider.allowedPermissions = []
            return run
        }
        facts[.settingPermissions] = EmbeddedWebviewProvider.allowedPermissions.map(\.rawValue).sorted()
    } else {
        run = SessionRun(redirectURI: redirect, parameters: parameters, authorizationURL: idp.url("/authorize"))
    }
    if surface.isCallerView, await run.recorder.wait(for: Patience.event, until: { $0.name == "didStartLoad" }) {
        facts[.settingsDuring] = surfaceSettings(of: surface.callerView)
    }
    // Context menus that get past the library's handler (connected after it: WebKit shows them),
    // and the stock actions they hold.
    let menus = SignalConnections()
    var menusShown: [String] = []
    if kind.hasPrefix("context-menu") {
        _ = await run.recorder.wait(for: Patience.event) { $0.name == "didStartLoad" }

        let record = { (menu: UnsafeMutableRawPointer?) -> Bool in
            menusShown.append(contextMenuActions(menu).map(String.init).joined(separator: ","))
            return false
        }
        if let view = run.webview {
            menus.connect(view, "context-menu", gtk_get_major_version() == 4
                ? .twoPointersReturningBool { (menu: UnsafeMutableRawPointer?, _: OpaquePointer?) in record(menu) }
                : .threePointersReturningBool { (menu: UnsafeMutableRawPointer?, _: OpaquePointer?, _: OpaquePointer?) in record(menu) })
        }
    }
    var maxToplevels = surface.libraryToplevels
    var maxPopups = 0
    if let button = click {
        _ = await ScenarioHost.wait(upTo: Patience.event) { !idp.requests(to: "/ready").isEmpty || run.result != nil }
        let title = mode == "view" ? "Caller window" : "Sign in to Test IdP"
        // The page answers a click it got.
        let clicks = await realClicks(button: button, windowTitle: title) {
            !idp.requests(to: "/report").isEmpty || run.result != nil || !menusShown.isEmpty
        }
        facts[.clickStatus] = Int(clicks.status)
        facts[.clickAttempts] = clicks.attempts
    }
    while run.result == nil {
        maxToplevels = max(maxToplevels, surface.libraryToplevels)
        if let view = run.webview ?? surface.callerView { maxPopups = max(maxPopups, visiblePopovers(in: view)) }
        await ScenarioHost.idle(.milliseconds(20))
    }
    let result = try await run.outcome()
    facts.merge(run.facts(result))
    facts[.maxLibraryToplevels] = maxToplevels
    facts[.maxPopovers] = maxPopups
    facts[.contextMenusShown] = menusShown
    menus.disconnectAll()
    facts[.libraryToplevelsAfter] = surface.libraryToplevels
    facts[.pageReport] = idp.requests(to: "/report").first?.query ?? ""
    facts[.reports] = idp.requests(to: "/report").count
    facts[.ticks] = idp.requests(to: "/tick").count
    for path in ["/attachment", "/html-attachment", "/octet", "/anchor"] {
        facts[.requests.suffixed(by: path)] = idp.requests(to: path).count
    }
    facts[.callbackHits] = callback.requests(to: "/callback").count
    if surface.isCallerView {
        await surface.waitForRelease()
        facts[.handlersLeft] = surface.handlersLeft
        facts[.signalsGainingHandlers] = signalsWithHandlers(surface.callerView).subtracting(signalsBefore).sorted()
        facts[.settingsAfter] = surfaceSettings(of: surface.callerView)
    }
    // What is on disk: every file under $HOME (the tests' temporary home, holding the XDG folders).
    let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
    var files: [String] = []
    var marked: [String] = []
    if let walk = FileManager.default.enumerator(atPath: home) {
        while let path = walk.nextObject() as? String {
            let full = home + "/" + path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            files.append(path)
            if let data = FileManager.default.contents(atPath: full), data.range(of: Data(downloadMarker.utf8)) != nil {
                marked.append(path)
            }
        }
    }
    facts[.homeFiles] = files.sorted()
    facts[.filesWithDownload] = marked.sorted()
    withExtendedLifetime(callback) {}
    return facts
}

/// The signals of `view` (its class and ancestors) that have a handler connected.
@MainActor
private func signalsWithHandlers(_ view: UnsafeMutableRawPointer?) -> Set<String> {
    guard let view else { return [] }
    var names: Set<String> = []
    var type = wvh_object_type(view)
    while type != 0 {
        var count: guint = 0
        if let ids = g_signal_list_ids(type, &count) {
            for index in 0..<Int(count)
            where g_signal_handler_find(view, GSignalMatchType(G_SIGNAL_MATCH_ID.rawValue), ids[index], 0, nil, nil, nil) != 0 {
                names.insert(String(cString: g_signal_name(ids[index])))
            }
            g_free(ids)
        }
        type = g_type_parent(type)
    }
    return names
}

/// Each setting the surface changes, as "name=value", of a caller's view (to compare with before).
@MainActor
private func surfaceSettings(of view: UnsafeMutableRawPointer?) -> [String] {
    guard let view else { return [] }
    let settings = UnsafeMutableRawPointer(webkit_web_view_get_settings(wvh_web_view(view)))!
    let names = [
        "enable-developer-extras", "javascript-can-access-clipboard", "enable-fullscreen", "enable-media-stream",
        "enable-webrtc", "media-playback-requires-user-gesture", "javascript-can-open-windows-automatically",
    ]
    return names.map { name in
        var value = GValue()
        g_value_init(&value, GType(5 << G_TYPE_FUNDAMENTAL_SHIFT))
        defer { g_value_unset(&value) }
        g_object_get_property(wvh_object(settings), name, &value)
        return "\(name)=\(g_value_get_boolean(&value) != 0)"
    }
}

/// The stock actions (`WebKitContextMenuAction` values) of a context menu's items.
@MainActor
private func contextMenuActions(_ menu: UnsafeMutableRawPointer?) -> [UInt32] {
    guard let menu else { return [] }
    var actions: [UInt32] = []
    var list = webkit_context_menu_get_items(.init(OpaquePointer(menu)))
    while let node = list {
        if let item = node.pointee.data { actions.append(webkit_context_menu_item_get_stock_action(.init(OpaquePointer(item))).rawValue) }
        list = node.pointee.next
    }
    return actions
}

/// Visible menus and popovers in `view`'s window (GTK 4 shows a context menu or a chooser as a
/// popover inside the window, not as a toplevel).
@MainActor
private func visiblePopovers(in view: UnsafeMutableRawPointer) -> Int {
    guard let window = Toolkit.window(of: view) else { return 0 }
    return Probes.descendants(of: window).filter {
        let name = String(cString: g_type_name(wvh_object_type($0)))
        return (name.contains("Popover") || name.contains("Menu")) && name != "GtkMenuButton" && gtk_widget_get_visible(wvh_widget($0)) != 0
    }.count
}

/// A real click (an X input event through XTest: `xdotool`) with `button` at `point` (the page's
/// middle unless said) of the window titled `windowTitle`; the exit status (0: clicked).
@MainActor
func realClick(button: Int, windowTitle: String, at point: (x: Int, y: Int) = (200, 200)) -> Int32 {
    let command = "xdotool search --onlyvisible --name '^\(windowTitle)$' mousemove --window %1 \(point.x) \(point.y) click \(button)"
    var status: gint = -1
    var error: UnsafeMutablePointer<GError>?
    guard g_spawn_command_line_sync(command, nil, nil, &status, &error) != 0 else {
        if let error { g_error_free(error) }
        return -1
    }
    return status
}

/// Real clicks (``realClick(button:windowTitle:at:)``) until `answered` holds, at most three: on a
/// busy machine the first click can come before the window is mapped and laid out under the
/// pointer, so each click waits up to 5 s (scaled) for its answer before the next. `point` is
/// read before each click (`nil`: none this time). The clicks made, and the last one's exit status.
@MainActor
func realClicks(
    button: Int, windowTitle: String, at point: () -> (x: Int, y: Int)? = { (200, 200) }, until answered: () -> Bool
) async -> (attempts: Int, status: Int32) {
    var attempts = 0
    var status: Int32 = -1
    repeat {
        attempts += 1
        if let point = point() { status = realClick(button: button, windowTitle: windowTitle, at: point) }
        _ = await ScenarioHost.wait(upTo: Patience.scaled(.seconds(5)), until: answered)
    } while attempts < 3 && !answered()
    return (attempts, status)
}
