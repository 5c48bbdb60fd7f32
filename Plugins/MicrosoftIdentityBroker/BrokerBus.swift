import CGLib
import Foundation
import GLibSupport
import Synchronization

/// The session-bus side of ``MicrosoftIdentityBroker``: one private `GDBusConnection`, calls to
/// `com.microsoft.identity.Broker1`, and a watch on the broker's name so that a broker that goes
/// away mid-call ends every call in flight at once. All GDBus work happens on one
/// `GLibWorkerThread` (GLibSupport) of its own; callers await.
///
/// This file holds the calls (start, cancel, end exactly once); the connection and the name
/// watch are in BrokerBus+Connection.swift, reading a reply in BrokerBus+Reply.swift.
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
        /// The broker is there and answered a D-Bus error (himmelblau's every failure), or did
        /// not answer within the call's time limit.
        case failed(String)
    }

    /// Unchecked: the GLib pointers are used on the worker thread only.
    struct Pending: @unchecked Sendable {
        let continuation: CheckedContinuation<Result<Reply, Failure>, Never>
        let cancellable: GObjectRef<UnsafeMutablePointer<GCancellable>>
        /// Calls to the broker end when its name loses its owner; calls to the bus itself do not.
        let toBroker: Bool
    }

    /// Unchecked: the GLib pointers are used on the worker thread only.
    struct State: @unchecked Sendable {
        /// The `GDBusConnection`, made on first use and again after it closed.
        var connection: GObjectRef<OpaquePointer>?
        var subscription: guint = 0
        /// Whoever waits for the connection being made (empty: no attempt under way).
        var connectionWaiters: [ConnectionWaiter] = []
        var pending: [UInt64: Pending] = [:]
        var nextID: UInt64 = 0
        /// Calls whose task was cancelled before their GDBus call started.
        var canceledBeforeStart: Set<UInt64> = []
    }

    /// `nil`: the session bus of `DBUS_SESSION_BUS_ADDRESS` (or of the user's systemd instance).
    let address: String?
    private let callTimeoutMilliseconds: Int32
    /// The limit of one attempt to connect (authentication and `Hello`): the call limit, at most 15 s.
    let connectAttemptMilliseconds: Int32
    private let worker = BrokerBus.sharedWorker
    let state = Mutex(State())

    /// The thread where every D-Bus call of this module starts and every reply and signal arrives,
    /// shared by every broker of the process: the module works the same whether or not the app runs
    /// a GLib main loop, and never touches the app's main thread.
    private static let sharedWorker = GLibWorkerThread(named: "MSBroker D-Bus")

    init(address: String?, callTimeout: Duration) {
        self.address = address
        let milliseconds = callTimeout.components.seconds * 1000 + callTimeout.components.attoseconds / 1_000_000_000_000_000
        callTimeoutMilliseconds = Int32(clamping: milliseconds)
        connectAttemptMilliseconds = max(1, min(callTimeoutMilliseconds, 15_000))
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

    /// On the worker thread. The call is pending (a cancel or the broker leaving ends it) while
    /// the connection is made, and starts on it unless it ended meanwhile.
    private func start(
        id: UInt64, continuation: CheckedContinuation<Result<Reply, Failure>, Never>, destination: String, path: String,
        interface: String, method: String, arguments: [String], timeout: Int32, toBroker: Bool
    ) {
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
        withConnection { [self] outcome in
            let connection: GObjectRef<OpaquePointer>
            switch outcome {
            case .success(let made): connection = made
            case .failure(let failure): return end(id, with: .failure(failure))
            }
            guard let cancellable = state.withLock({ $0.pending[id]?.cancellable }) else { return }  // ended while connecting
            var children = arguments.map { g_variant_new_string($0) }
            let parameters = children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
            let ended: @Sendable (Result<Reply, Failure>) -> Void = { [self] outcome in end(id, with: outcome) }
            g_dbus_connection_call(
                connection.pointer, destination, path, interface, method, parameters, nil, wvh_dbus_call_flags_none(), timeout,
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
    }

    /// Resumes the call `id` once (later ends do nothing) and cancels its GDBus call; on the worker thread.
    func end(_ id: UInt64, with outcome: Result<Reply, Failure>) {
        let pending = state.withLock { $0.pending.removeValue(forKey: id) }
        guard let pending else { return }
        g_cancellable_cancel(pending.cancellable.pointer)
        pending.continuation.resume(returning: outcome)
    }
}
