import CGLib
import Foundation
import GLibSupport
import Synchronization

/// The session-bus side of ``MicrosoftIdentityBroker``: one private `GDBusConnection`, calls to
/// `com.microsoft.identity.Broker1`, and a watch on the broker's name so that a broker that goes
/// away mid-call ends every call in flight at once. All GDBus work happens on
/// ``GLibWorkerThread``; callers await.
final class BrokerBus: @unchecked Sendable {
    static let busName = "com.microsoft.identity.broker1"
    static let objectPath = "/com/microsoft/identity/broker1"
    static let interface = "com.microsoft.identity.Broker1"
    /// What every client sends as the protocol version.
    static let protocolVersion = "0.0"

    /// What a bus call returns, decoded on the worker thread.
    enum Reply: Sendable {
        case string(String)
        case bool(Bool)
        case strings([String])
    }

    /// Why a call failed, before the broker's answer is read.
    enum Failure: Error, Sendable {
        /// The task awaiting the call was cancelled.
        case canceled
        /// No bus, no broker, or the broker went away (the D-Bus error or a description).
        case unavailable(String)
        /// The broker does not have this method or signature (another protocol version).
        case mismatch(String)
    }

    /// Unchecked: the GLib pointers are used on the worker thread only.
    private struct Pending: @unchecked Sendable {
        let continuation: CheckedContinuation<Result<Reply, Failure>, Never>
        let cancellable: GObjectRef<UnsafeMutablePointer<GCancellable>>
        /// Calls to the broker end when its name loses its owner; calls to the bus itself do not.
        let toBroker: Bool
    }

    /// Unchecked: the GLib pointers are used on the worker thread only.
    private struct State: @unchecked Sendable {
        /// The `GDBusConnection`, made on first use and again after it closed.
        var connection: GObjectRef<OpaquePointer>?
        var subscription: guint = 0
        var pending: [UInt64: Pending] = [:]
        var nextID: UInt64 = 0
        /// Calls whose task was cancelled before their GDBus call started.
        var canceledBeforeStart: Set<UInt64> = []
    }

    /// `nil`: the session bus of `DBUS_SESSION_BUS_ADDRESS` (or of the user's systemd instance).
    private let address: String?
    private let callTimeoutMilliseconds: Int32
    private let worker = GLibWorkerThread.shared
    private let state = Mutex(State())

    init(address: String?, callTimeout: Duration) {
        self.address = address
        let milliseconds = callTimeout.components.seconds * 1000 + callTimeout.components.attoseconds / 1_000_000_000_000_000
        callTimeoutMilliseconds = Int32(clamping: milliseconds)
    }

    deinit {
        let taken = state.withLock { state -> (GObjectRef<OpaquePointer>?, guint) in
            defer { state.connection = nil }
            return (state.connection, state.subscription)
        }
        if let made = taken.0 {
            // Handed to the worker thread, the only one that uses it (and releases it, with the job).
            nonisolated(unsafe) let connection = made
            let subscription = taken.1
            worker.perform {
                if subscription != 0 { g_dbus_connection_signal_unsubscribe(connection.pointer, subscription) }
                g_dbus_connection_close(connection.pointer, nil, nil, nil)
            }
        }
    }

    // MARK: - Calls

    /// Calls `method` of the broker with `(protocolVersion, correlationID, requestJSON)` and
    /// returns its response JSON. `interactive` calls have no D-Bus timeout (the person may take
    /// minutes); the others have the configured one.
    func callBroker(_ method: String, correlationID: String, request: String, interactive: Bool) async -> Result<String, Failure> {
        let result = await call(
            destination: Self.busName, path: Self.objectPath, interface: Self.interface, method: method,
            arguments: [Self.protocolVersion, correlationID, request], timeout: interactive ? Int32.max : callTimeoutMilliseconds,
            toBroker: true)
        switch result {
        case .success(.string(let response)): return .success(response)
        case .success: return .failure(.mismatch("\(method) did not answer one string"))
        case .failure(let failure): return .failure(failure)
        }
    }

    /// Sends a call and forgets it (`cancelInteractiveFlow`): its answer is not awaited.
    func sendToBroker(_ method: String, correlationID: String, request: String) {
        Task { _ = await callBroker(method, correlationID: correlationID, request: request, interactive: false) }
    }

    /// Whether the broker's name has an owner now, or the bus can start one (D-Bus activation).
    func brokerIsReachable() async -> Result<Bool, Failure> {
        let owned = await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "NameHasOwner", arguments: [Self.busName], timeout: callTimeoutMilliseconds, toBroker: false)
        switch owned {
        case .success(.bool(true)): return .success(true)
        case .success(.bool(false)): break
        case .success: return .failure(.mismatch("NameHasOwner did not answer a boolean"))
        case .failure(let failure): return .failure(failure)
        }
        let activatable = await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: "ListActivatableNames", arguments: [], timeout: callTimeoutMilliseconds, toBroker: false)
        switch activatable {
        case .success(.strings(let names)): return .success(names.contains(Self.busName))
        case .success: return .failure(.mismatch("ListActivatableNames did not answer a string array"))
        case .failure(let failure): return .failure(failure)
        }
    }

    private func call(
        destination: String, path: String, interface: String, method: String, arguments: [String], timeout: Int32, toBroker: Bool
    ) async -> Result<Reply, Failure> {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        defer { state.withLock { _ = $0.canceledBeforeStart.remove(id) } }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Reply, Failure>, Never>) in
                worker.perform { [self] in
                    start(
                        id: id, continuation: continuation, destination: destination, path: path, interface: interface, method: method,
                        arguments: arguments, timeout: timeout, toBroker: toBroker)
                }
            }
        } onCancel: {
            // Before the call started (the start job is still queued): it ends as soon as it starts.
            state.withLock { state in
                if state.pending[id] == nil { state.canceledBeforeStart.insert(id) }
            }
            worker.perform { [self] in end(id, with: .failure(.canceled)) }
        }
    }

    /// On the worker thread.
    private func start(
        id: UInt64, continuation: CheckedContinuation<Result<Reply, Failure>, Never>, destination: String, path: String,
        interface: String, method: String, arguments: [String], timeout: Int32, toBroker: Bool
    ) {
        let connection: GObjectRef<OpaquePointer>
        switch connect() {
        case .success(let made): connection = made
        case .failure(let failure):
            continuation.resume(returning: .failure(failure))
            return
        }
        let cancellable = GObjectRef(adopting: g_cancellable_new()!)
        let alreadyCanceled = state.withLock { state -> Bool in
            // A cancel that ran before this start found nothing to end: remember it by the id.
            if state.canceledBeforeStart.remove(id) != nil { return true }
            state.pending[id] = Pending(continuation: continuation, cancellable: cancellable, toBroker: toBroker)
            return false
        }
        if alreadyCanceled {
            continuation.resume(returning: .failure(.canceled))
            return
        }
        var children = arguments.map { g_variant_new_string($0) }
        let parameters = children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        let ended: @Sendable (Result<Reply, Failure>) -> Void = { [self] outcome in end(id, with: outcome) }
        g_dbus_connection_call(
            connection.pointer, destination, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NONE, timeout,
            cancellable.pointer,
            { source, result, data in
                let ended = UserData<@Sendable (Result<Reply, Failure>) -> Void>.take(data)
                var error: UnsafeMutablePointer<GError>?
                let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
                let outcome: Result<Reply, Failure>
                if let reply {
                    outcome = BrokerBus.decode(reply)
                    g_variant_unref(reply)
                } else if let error {
                    outcome = .failure(BrokerBus.failure(from: error))
                    g_error_free(error)
                } else {
                    outcome = .failure(.unavailable("the call ended without a reply or an error"))
                }
                ended(outcome)
            }, UserData.retained(ended))
    }

    /// Resumes the call `id` once (later ends do nothing) and cancels its GDBus call; on the worker thread.
    private func end(_ id: UInt64, with outcome: Result<Reply, Failure>) {
        let pending = state.withLock { $0.pending.removeValue(forKey: id) }
        guard let pending else { return }
        g_cancellable_cancel(pending.cancellable.pointer)
        pending.continuation.resume(returning: outcome)
    }

    /// The connection, made (and the name watched) on first use; on the worker thread.
    private func connect() -> Result<GObjectRef<OpaquePointer>, Failure> {
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

    // MARK: - Decoding

    private static func decode(_ reply: OpaquePointer) -> Result<Reply, Failure> {
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

    private static func failure(from error: UnsafeMutablePointer<GError>) -> Failure {
        let remote = g_dbus_error_get_remote_error(error).map { pointer in
            defer { g_free(pointer) }
            return String(cString: pointer)
        }
        let copied = GLibError(UnsafePointer(error))
        if copied.isIOError(G_IO_ERROR_CANCELLED) { return .canceled }
        let name = remote ?? copied.domain
        let text = "\(name): \(copied.message)"
        switch remote {
        case "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownInterface",
            "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.InvalidArgs":
            return .mismatch(text)
        default:
            return .unavailable(text)
        }
    }
}
