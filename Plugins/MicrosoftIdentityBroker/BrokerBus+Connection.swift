import CGLib
import GLibSupport
import Synchronization

/// The bus connection, made on first use and again after it closed, and the watch on the
/// broker's name that ends the calls in flight when the broker goes away.
extension BrokerBus {
    /// The connection, made (and the name watched) on first use; on the worker thread.
    func connect() -> Result<GObjectRef<OpaquePointer>, Failure> {
        if let connection = state.withLock({ $0.connection }) {
            if g_dbus_connection_is_closed(connection.pointer) == 0 { return .success(connection) }
            // The bus went away (or the connection was closed): drop it, connect again below.
            let subscription = state.withLock { state in
                defer { (state.connection, state.subscription) = (nil, 0) }
                return state.subscription
            }
            if subscription != 0 { g_dbus_connection_signal_unsubscribe(connection.pointer, subscription) }
        }
        let made: GObjectRef<OpaquePointer>?
        do throws(GLibError) {
            var resolved = self.address
            if resolved == nil, let found = try withGError({ g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, $0) }) {
                resolved = String(cString: found)
                g_free(found)
            }
            guard let address = resolved else { return .failure(.unavailable("there is no session bus")) }
            let flags = GDBusConnectionFlags(
                rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
            made = try withGError { g_dbus_connection_new_for_address_sync(address, flags, nil, nil, $0) }.map(GObjectRef.init(adopting:))
        } catch {
            return .failure(.unavailable("the session bus cannot be reached: \(error.message)"))
        }
        guard let made else { return .failure(.unavailable("the session bus cannot be reached")) }
        g_dbus_connection_set_exit_on_close(made.pointer, 0)
        // Weak: the subscription must not keep the bus alive.
        let ownerChanged: @Sendable (String, String) -> Void = { [weak self] old, new in self?.brokerChangedOwner(from: old, to: new) }
        let subscription = g_dbus_connection_signal_subscribe(
            made.pointer, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged", "/org/freedesktop/DBus", Self.busName,
            G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, data in
                guard let parameters else { return }
                let ownerChanged = UserData<@Sendable (String, String) -> Void>.borrow(data)
                guard g_variant_n_children(parameters) == 3 else { return }
                func child(_ index: Int) -> String {
                    let value = g_variant_get_child_value(parameters, gsize(index))!
                    defer { g_variant_unref(value) }
                    return String(cString: g_variant_get_string(value, nil))
                }
                ownerChanged(child(1), child(2))
            }, UserData.retained(ownerChanged), UserData<@Sendable (String, String) -> Void>.destroyNotify)
        state.withLock {
            $0.connection = made
            $0.subscription = subscription
        }
        return .success(made)
    }

    /// The broker's name lost its owner (or changed hands): every call to it in flight ends now.
    /// A first owner (D-Bus activation started the broker for a call) ends nothing.
    private func brokerChangedOwner(from oldOwner: String, to owner: String) {
        guard !oldOwner.isEmpty, oldOwner != owner else { return }
        let ended = state.withLock { state -> [UInt64] in
            state.pending.filter { $0.value.toBroker }.map(\.key)
        }
        guard !ended.isEmpty else { return }
        let why = owner.isEmpty ? "the identity broker left the session bus during the call" : "the identity broker was replaced during the call"
        for id in ended { end(id, with: .failure(.unavailable(why))) }
    }
}
