#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport

/// The desktop's light/dark preference, for the library's sign-in window and the page in it (a
/// page's `prefers-color-scheme` follows GTK's `gtk-application-prefer-dark-theme`, which WebKitGTK
/// reads).
///
/// The preference is the Settings portal's `org.freedesktop.appearance color-scheme` (1: dark,
/// 2: light, 0: none), read over the session bus from a portal that is running (never started for
/// it). With no portal running, or no preference, GTK's own
/// settings stand (`gtk-application-prefer-dark-theme`, a dark theme name), which WebKit follows
/// by itself. The library's window is modal over the app and GTK settings are per display, so
/// ``applyForWindow(follows:)`` sets the preference for the length of the session and ``restore()`` puts
/// the app's value back. A caller's view is left to the app. Main thread.
@MainActor
final class SignInAppearance {
    /// The portal's last answer (`nil`: not read yet, or no portal).
    private static var colorScheme: UInt32?

    /// GTK's default settings (the display's, which outlive the session), as the `GObject` whose
    /// property is set.
    private let settings: UnsafeMutablePointer<GObject>
    private let previous: gboolean

    private init(settings: UnsafeMutablePointer<GObject>, previous: gboolean) {
        self.settings = settings
        self.previous = previous
    }

    /// Reads the portal's `color-scheme` (at most a second) when the session `follows` it (its
    /// ``EmbeddedWebviewProvider/followsDesktopColorScheme``); remembers it for
    /// ``applyForWindow(follows:)``. Never throws: no bus or no portal leaves GTK's settings in charge.
    static func readDesktopPreference(follows: Bool) async {
        guard follows, hasSessionBus else { return }
        colorScheme = await withCheckedContinuation { (continuation: CheckedContinuation<UInt32?, Never>) in
            g_bus_get(G_BUS_TYPE_SESSION, nil, AsyncReadyCallback.function, AsyncReadyCallback.userData { _, result in
                var error: UnsafeMutablePointer<GError>?
                guard let connection = g_bus_get_finish(result, &error).map({ GObjectRef(adopting: $0) }) else {
                    if let error { g_error_free(error) }
                    continuation.resume(returning: nil)
                    return
                }
                let arguments = [g_variant_new_string("org.freedesktop.appearance"), g_variant_new_string("color-scheme")]
                let parameters = arguments.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, 2) }
                // `Read` (every portal version): the value comes as (v) holding a v holding u.
                // Only a portal already running is asked: a desktop runs it from the start, and
                // on a bus where it is only activatable (a bare session, a test's private bus)
                // auto-starting it spawned xdg-desktop-portal, its GTK backend, the document
                // portal and the permission store, for every session, beside its web process.
                g_dbus_connection_call(
                    connection.pointer, "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                    "org.freedesktop.portal.Settings", "Read", parameters, nil, G_DBUS_CALL_FLAGS_NO_AUTO_START,
                    appearancePortalTimeout, nil, AsyncReadyCallback.function,
                    AsyncReadyCallback.userData { source, result in
                        continuation.resume(returning: Self.scheme(inReplyFrom: source, result))
                    })
            })
        }
    }

    /// The `u` inside the portal's reply to `Read` (`g_dbus_connection_call_finish`); `nil` for an
    /// error or another type.
    private static func scheme(inReplyFrom connection: UnsafeMutablePointer<GObject>?, _ result: OpaquePointer?) -> UInt32? {
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_finish(OpaquePointer(connection), result, &error)
        if let error { g_error_free(error) }
        var value = reply.map { g_variant_get_child_value($0, 0) }
        if let reply { g_variant_unref(reply) }
        while let current = value, String(cString: g_variant_get_type_string(current)) == "v" {
            value = g_variant_get_variant(current)
            g_variant_unref(current)
        }
        var scheme: UInt32?
        if let value {
            if String(cString: g_variant_get_type_string(value)) == "u" { scheme = g_variant_get_uint32(value) }
            g_variant_unref(value)
        }
        return scheme
    }

    /// Whether a session bus is there to ask (its address in the environment, or the user bus
    /// socket): without one GIO would start a bus of its own (`dbus-launch`) just to find no portal.
    private static var hasSessionBus: Bool {
        if let address = g_getenv("DBUS_SESSION_BUS_ADDRESS"), address.pointee != 0 { return true }
        let socket = String(cString: g_get_user_runtime_dir()) + "/bus"
        return g_file_test(socket, G_FILE_TEST_EXISTS) != 0
    }

    /// Sets GTK's `gtk-application-prefer-dark-theme` to the portal's preference while the
    /// library's window shows, when the session `follows` it; `nil` when there is nothing to change.
    static func applyForWindow(follows: Bool) -> SignInAppearance? {
        guard follows, let scheme = colorScheme, scheme == 1 || scheme == 2,
            let settings = gtk_settings_get_default()?.gObject
        else { return nil }
        let previous = preferDark(settings)
        let wanted: gboolean = scheme == 1 ? 1 : 0
        guard previous != wanted else { return nil }
        setPreferDark(settings, wanted)
        return SignInAppearance(settings: settings, previous: previous)
    }

    /// Puts the app's `gtk-application-prefer-dark-theme` back.
    func restore() {
        Self.setPreferDark(settings, previous)
    }

    private static func preferDark(_ settings: UnsafeMutablePointer<GObject>) -> gboolean {
        var value = GValue()
        g_value_init(&value, GType(5 << G_TYPE_FUNDAMENTAL_SHIFT))  // G_TYPE_BOOLEAN
        defer { g_value_unset(&value) }
        g_object_get_property(settings, "gtk-application-prefer-dark-theme", &value)
        return g_value_get_boolean(&value)
    }

    private static func setPreferDark(_ settings: UnsafeMutablePointer<GObject>, _ flag: gboolean) {
        var value = GValue()
        g_value_init(&value, GType(5 << G_TYPE_FUNDAMENTAL_SHIFT))
        defer { g_value_unset(&value) }
        g_value_set_boolean(&value, flag)
        g_object_set_property(settings, "gtk-application-prefer-dark-theme", &value)
    }
}

/// How long the portal may take to answer (ms) before the session goes on without it.
private let appearancePortalTimeout: Int32 = 1000
