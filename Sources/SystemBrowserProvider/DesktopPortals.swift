import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// Which XDG desktop portals answer on the session bus, and their versions: what an app in a
/// sandbox can reach the host through (for `WEBVIEW_HOST_PROVIDER=help`).
enum DesktopPortals {
    /// The portals a sign-in uses: the browser (OpenURI), the token cache (Secret), the desktop's
    /// light/dark preference (Settings).
    static let used = ["OpenURI", "Secret", "Settings"]

    /// Each portal's `version`, or why it did not answer, asked with a 1 s limit each
    /// (`org.freedesktop.DBus.Properties.Get` on `/org/freedesktop/portal/desktop`).
    static func versions() -> [(portal: String, answer: Result<UInt32, GLibError>)] {
        let connection: OpaquePointer
        do throws(GLibError) {
            guard let made = try withGError({ g_bus_get_sync(G_BUS_TYPE_SESSION, nil, $0) }) else { return [] }
            connection = made
        } catch {
            return used.map { ($0, .failure(error)) }
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        return used.map { portal in
            let interface = "org.freedesktop.portal.\(portal)"
            do throws(GLibError) {
                let reply = try withGError {
                    g_dbus_connection_call_sync(
                        connection, "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                        "org.freedesktop.DBus.Properties", "Get", Self.arguments(interface, "version"),
                        nil, wvh_dbus_call_flags_none(), 1000, nil, $0)
                }
                guard let reply else { return (portal, .failure(GLibError(domain: "portal", code: 0, message: "no reply"))) }
                defer { g_variant_unref(reply) }
                // (v) holding a u.
                let boxed = g_variant_get_child_value(reply, 0)!
                defer { g_variant_unref(boxed) }
                let value = g_variant_get_variant(boxed)!
                defer { g_variant_unref(value) }
                return (portal, .success(g_variant_get_uint32(value)))
            } catch {
                return (portal, .failure(error))
            }
        }
    }

    /// `(ss)` of `first` and `second`, floating (the call takes it).
    private static func arguments(_ first: String, _ second: String) -> OpaquePointer {
        var children: [OpaquePointer?] = [g_variant_new_string(first), g_variant_new_string(second)]
        return children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, 2) }
    }

    /// "OpenURI 4, Secret 1, Settings: not answered (org.freedesktop.DBus.Error.ServiceUnknown)".
    static func summary() -> String {
        versions().map { item in
            switch item.answer {
            case .success(let version): "\(item.portal) \(version)"
            case .failure(let error): "\(item.portal): not answered (\(error.message))"
            }
        }.joined(separator: ", ")
    }
}
