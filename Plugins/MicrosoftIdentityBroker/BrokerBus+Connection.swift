import CGLib
import GLibSupport
import Synchronization

/// The bus connection, made on first use and again after it closed, and the watch on the
/// broker's name that ends the calls in flight when the broker goes away.
///
/// The connection is made asynchronously (`g_dbus_connection_new_for_address`, whose blocking
/// part runs on a GIO thread): the worker thread, which every broker of the process shares,
/// never waits on a bus. An attempt that gets no answer within `connectAttemptMilliseconds` (the
/// call time limit, at most 15 s) is abandoned and made once more; calls waiting for it end
/// `unavailable` after the second.
extension BrokerBus {
    /// Attempts before a call ends `unavailable` because the bus does not answer.
    static let connectAttempts = 2

    typealias ConnectionWaiter = @Sendable (Result<GObjectRef<OpaquePointer>, Failure>) -> Void

    /// Hands `waiter` the connection, first making it if there is none or it closed; on the
    /// worker thread, and `waiter` is called there (at once, or when the attempt ends).
    func withConnection(_ waiter: @escaping ConnectionWaiter) {
        if let connection = state.withLock({ $0.connection }) {
            if g_dbus_connection_is_closed(connection.pointer) == 0 {
                waiter(.success(connection))
                return
            }
            // The bus went away (or the connection was closed): drop it, connect again below.
            let subscription = state.withLock { state in
                defer { (state.connection, state.subscription) = (nil, 0) }
                return state.subscription
            }
            if subscription != 0 { g_dbus_connection_signal_unsubscribe(connection.pointer, subscription) }
        }
        let first = state.withLock { state in
            state.connectionWaiters.append(waiter)
            return state.connectionWaiters.count == 1
        }
        if first { connect(attempt: 1) }
    }

    /// One attempt to connect; on the worker thread.
    private func connect(attempt: Int) {
        var resolved = self.address
        if resolved == nil {
            do throws(GLibError) {
                if let found = try withGError({ g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, $0) }) {
                    resolved = String(cString: found)
                    g_free(found)
                }
            } catch {
                return connected(.failure(.unavailable("the session bus cannot be reached: \(error.message)")))
            }
        }
        guard let address = resolved else { return connected(.failure(.unavailable("there is no session bus"))) }

        // Worker-thread values, used only there (by the closures below, which run there).
        nonisolated(unsafe) let cancellable = GObjectRef(adopting: g_cancellable_new()!)
        let limit = g_timeout_source_new(UInt32(connectAttemptMilliseconds))!
        let abandon: @Sendable () -> Void = { g_cancellable_cancel(cancellable.pointer) }
        g_source_set_callback(
            limit,
            { data in
                UserData<@Sendable () -> Void>.borrow(data)()
                return 0  // G_SOURCE_REMOVE
            }, UserData.retained(abandon), UserData<@Sendable () -> Void>.destroyNotify)
        g_source_attach(limit, g_main_context_get_thread_default())
        nonisolated(unsafe) let attemptLimit = limit

        let ended: @Sendable (OpaquePointer?, GLibError?) -> Void = { [self] made, error in
            g_source_destroy(attemptLimit)
            g_source_unref(attemptLimit)
            if let made { return connected(.success(GObjectRef(adopting: made))) }
            let timedOut = g_cancellable_is_cancelled(cancellable.pointer) != 0
            if timedOut, attempt < Self.connectAttempts { return connect(attempt: attempt + 1) }
            let waited = Duration.milliseconds(Int64(connectAttemptMilliseconds) * Int64(attempt))
            let why = timedOut ? "the session bus did not answer within \(waited)" : "the session bus cannot be reached: \(error?.message ?? "no reason given")"
            connected(.failure(.unavailable(why)))
        }
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        g_dbus_connection_new_for_address(
            address, flags, nil, cancellable.pointer,
            { _, result, data in
                let ended = UserData<@Sendable (OpaquePointer?, GLibError?) -> Void>.take(data)
                var error: UnsafeMutablePointer<GError>?
                let made = g_dbus_connection_new_for_address_finish(result, &error)
                ended(made, error.map { GLibError(consuming: $0) })
            }, UserData.retained(ended))
    }

    /// The attempt ended: keep the connection and watch the broker's name on it, then hand the
    /// outcome to every call that waited; on the worker thread.
    private func connected(_ outcome: Result<GObjectRef<OpaquePointer>, Failure>) {
        if case .success(let made) = outcome {
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
        }
        let waiters = state.withLock { state in
            defer { state.connectionWaiters = [] }
            return state.connectionWaiters
        }
        for waiter in waiters { waiter(outcome) }
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
