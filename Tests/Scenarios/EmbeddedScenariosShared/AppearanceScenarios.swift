// Scenarios for the person's look (issue 17, item 6): the library's window and the page follow
// the desktop's light/dark preference. A fake Settings portal (org.freedesktop.portal.Desktop on
// the scenario's private session bus: run under dbus-run-session) answers `color-scheme`; the page
// reports `matchMedia('(prefers-color-scheme: dark)')` to the test server.
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

@MainActor
extension EmbeddedScenarios {
    static let appearance: Scenario = { arguments in try await appearanceScenario(preference: arguments[0]) }
}

/// `preference`: "dark" or "light" (the fake portal's `color-scheme` 1 or 2), "none" (the portal
/// answers 0), "no-portal" (no portal on the bus; the desktop's GTK settings.ini decides).
/// `APPEARANCE_SCREENSHOT=<path>` takes a screenshot of the screen (`import -window root`) while
/// the sign-in page shows.
@MainActor
func appearanceScenario(preference: String) async throws -> ScenarioReport {
    var facts = ScenarioReport()
    facts[.preference] = preference
    let scheme: UInt32? = ["none": 0, "dark": 1, "light": 2][preference]
    if let scheme { facts[.portalOwned] = FakeSettingsPortal.start(colorScheme: scheme) }
    let settings = UnsafeMutableRawPointer(gtk_settings_get_default()!)
    facts[.appPrefersDarkBefore] = preferDark(settings)
    let callback = try callbackListener()
    let idp = try TestServer()
    let redirect = callback.url("/callback")
    let screenshot = ProcessInfo.processInfo.environment["APPEARANCE_SCREENSHOT"]
    idp.route("/report") { _ in .html("ok") }
    idp.route("/authorize") { _ in
        .html(Pages.login(action: "/login", submitAfterMilliseconds: nil).replacingOccurrences(
            of: "</body>",
            with: """
                <script>
                const dark = matchMedia('(prefers-color-scheme: dark)').matches;
                if (dark) { document.body.style.background = '#1e1e1e'; document.querySelector('main').style.background = '#2d2d2d'; document.querySelector('main').style.color = '#eee'; }
                fetch('/report?dark=' + dark).then(() => setTimeout(() => { location.href = '\(redirect)?code=look&state=xyz'; }, \(screenshot == nil ? 300 : 4000)));
                </script></body>
                """))
    }
    let run = SessionRun(redirectURI: redirect, parameters: windowParameters(parent: nil), authorizationURL: idp.url("/authorize"))
    let deadline = ContinuousClock.now + .seconds(20)
    while idp.requests(to: "/report").isEmpty, run.result == nil, ContinuousClock.now < deadline {
        await ScenarioHost.idle(.milliseconds(25))
    }
    facts[.appPrefersDarkDuring] = preferDark(settings)
    if let screenshot {
        await ScenarioHost.idle(.milliseconds(1000))  // painted (a picture for a person, not a check)
        var status: gint = -1
        _ = g_spawn_command_line_sync("import -window root \(screenshot)", nil, nil, &status, nil)
        facts[.screenshotStatus] = Int(status)
    }
    let result = try await run.outcome()
    facts.merge(run.facts(result))
    facts[.pageReport] = idp.requests(to: "/report").first?.query ?? ""
    facts[.appPrefersDarkAfter] = preferDark(settings)
    withExtendedLifetime(callback) {}
    return facts
}

@MainActor
private func preferDark(_ settings: UnsafeMutableRawPointer) -> Bool {
    var value = GValue()
    g_value_init(&value, GType(5 << G_TYPE_FUNDAMENTAL_SHIFT))
    defer { g_value_unset(&value) }
    g_object_get_property(wvh_object(settings), "gtk-application-prefer-dark-theme", &value)
    return g_value_get_boolean(&value) != 0
}

/// `org.freedesktop.portal.Settings` on this process's session bus, as xdg-desktop-portal
/// serves it: `Read("org.freedesktop.appearance", "color-scheme")` answers (v) holding a v
/// holding the u it was given. Anything else is answered with an error.
@MainActor
enum FakeSettingsPortal {
    static let introspection = """
        <node><interface name="org.freedesktop.portal.Settings">
        <method name="Read"><arg type="s" name="namespace" direction="in"/><arg type="s" name="key" direction="in"/>
        <arg type="v" name="value" direction="out"/></method>
        </interface></node>
        """

    /// Registers the object and owns `org.freedesktop.portal.Desktop`; whether the name is ours.
    static func start(colorScheme: UInt32) -> Bool {
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, nil),
            let node = g_dbus_node_info_new_for_xml(introspection, nil),
            let interface = node.pointee.interfaces?[0]
        else { return false }
        let vtable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)  // lives as long as the process
        vtable.initialize(to: GDBusInterfaceVTable())
        vtable.pointee.method_call = { _, _, _, _, method, parameters, invocation, data in
            let scheme = UInt32(UInt(bitPattern: data))
            var namespace: UnsafePointer<gchar>?
            var key: UnsafePointer<gchar>?
            if let parameters, g_variant_n_children(parameters) == 2 {
                namespace = g_variant_get_string(g_variant_get_child_value(parameters, 0), nil)
                key = g_variant_get_string(g_variant_get_child_value(parameters, 1), nil)
            }
            if method.map({ String(cString: $0) }) == "Read", namespace.map({ String(cString: $0) }) == "org.freedesktop.appearance",
                key.map({ String(cString: $0) }) == "color-scheme"
            {
                let inner = g_variant_new_variant(g_variant_new_uint32(scheme))
                let items = [g_variant_new_variant(inner)]
                g_dbus_method_invocation_return_value(invocation, items.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, 1) })
            } else {
                g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.portal.Error.NotFound", "Requested setting not found")
            }
        }
        let id = g_dbus_connection_register_object(
            connection, "/org/freedesktop/portal/desktop", interface, vtable,
            UnsafeMutableRawPointer(bitPattern: UInt(colorScheme)),  // the answer, as the user data (0: nil)
            nil, nil)
        guard id != 0 else { return false }
        // RequestName, answered by the bus: 1 is "primary owner".
        let arguments = [g_variant_new_string("org.freedesktop.portal.Desktop"), g_variant_new_uint32(4)]  // DO_NOT_QUEUE
        guard let reply = g_dbus_connection_call_sync(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
            arguments.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, 2) }, nil, G_DBUS_CALL_FLAGS_NONE, 5000, nil, nil)
        else { return false }
        defer { g_variant_unref(reply) }
        return g_variant_get_uint32(g_variant_get_child_value(reply, 0)) == 1
    }
}
