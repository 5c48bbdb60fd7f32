import CGLib
import GLibSupport

/// A call's reply or error, read on the worker thread: the one value of an `(s)`, `(b)` or `(as)`
/// reply, and a D-Bus error sorted into cancelled, unavailable or another protocol version.
extension BrokerBus {
    /// The one value of a reply `GVariant` (`(s)`, `(b)` or `(as)`); any other type is a mismatch.
    static func decode(_ reply: OpaquePointer) -> Result<Reply, Failure> {
        let type = String(cString: g_variant_get_type_string(reply))
        guard g_variant_n_children(reply) == 1, let child = g_variant_get_child_value(reply, 0) else {
            return .failure(.mismatch("the reply has the type \(type)"))
        }
        defer { g_variant_unref(child) }
        switch type {
        case "(s)":
            return .success(.string(String(cString: g_variant_get_string(child, nil))))
        case "(b)":
            return .success(.bool(g_variant_get_boolean(child) != 0))
        case "(as)":
            var names: [String] = []
            for index in 0..<g_variant_n_children(child) {
                let item = g_variant_get_child_value(child, index)!
                names.append(String(cString: g_variant_get_string(item, nil)))
                g_variant_unref(item)
            }
            return .success(.strings(names))
        default:
            return .failure(.mismatch("the reply has the type \(type)"))
        }
    }

    /// What a call's `GError` means: cancelled; a broker of another protocol version (unknown
    /// method, interface, object or arguments); no broker (nobody owns the name, the bus could not
    /// start it, the connection closed); or a broker that is there and failed (any other D-Bus
    /// error it answered, or no answer in time). The error is not freed.
    static func failure(from error: UnsafeMutablePointer<GError>) -> Failure {
        let remote = g_dbus_error_get_remote_error(error).map { pointer in
            defer { g_free(pointer) }
            return String(cString: pointer)
        }
        let copied = GLibError(UnsafePointer(error))
        if copied.isIOError(G_IO_ERROR_CANCELLED) { return .canceled }
        let name = remote ?? copied.domain
        let text = "\(name): \(copied.message)"
        guard let remote else {
            return copied.isTimedOut ? .failed(text) : .unavailable(text)
        }
        switch remote {
        case "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownInterface",
            "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.InvalidArgs":
            return .mismatch(text)
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.Disconnected", "org.freedesktop.DBus.Error.NoServer":
            return .unavailable(text)
        case _ where remote.hasPrefix("org.freedesktop.DBus.Error.Spawn."):
            return .unavailable(text)  // the bus could not start the broker
        default:
            return .failed(text)  // NoReply, Failed, the broker's own names
        }
    }
}
