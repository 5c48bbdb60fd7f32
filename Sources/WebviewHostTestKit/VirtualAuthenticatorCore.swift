import Crypto
import Dispatch
import Foundation
import Synchronization

/// The serving part of a ``VirtualAuthenticator``: the socket, its threads, and the state. The
/// threads hold this, not the public object, so releasing that object stops them.
final class AuthenticatorCore: Sendable {
    let socketPath: String
    let state: Mutex<AuthenticatorState>
    private let listener: SocketDescriptor
    /// Readable once stop() wrote to its other end: wakes every poll.
    let stopSignal: SocketDescriptor
    private let stopTrigger: SocketDescriptor
    private let threads = DispatchGroup()
    private let cleanup = Mutex(false)

    private init(socketPath: String, listener: SocketDescriptor, options: VirtualAuthenticator.Options) throws(VirtualAuthenticatorError) {
        self.socketPath = socketPath
        self.listener = listener
        let pair = try SocketDescriptor.pair()
        stopSignal = pair.0
        stopTrigger = pair.1
        state = Mutex(AuthenticatorState(options: options))
    }

    static func start(options: VirtualAuthenticator.Options, socketPath: String?) throws(VirtualAuthenticatorError) -> AuthenticatorCore {
        let path = socketPath ?? temporarySocketPath()
        let listener = try SocketDescriptor.listening(at: path)
        let core: AuthenticatorCore
        do {
            core = try AuthenticatorCore(socketPath: path, listener: listener, options: options)
        } catch {
            listener.close()
            unlink(path)
            throw error
        }
        core.startThread(name: "VirtualAuthenticator listener") { core.acceptConnections() }
        return core
    }

    private static func temporarySocketPath() -> String {
        var folder = NSTemporaryDirectory()
        // sun_path holds 108 bytes: a long TMPDIR falls back to /tmp.
        if folder.utf8.count > 60 { folder = "/tmp/" }
        if !folder.hasSuffix("/") { folder += "/" }
        return folder + "webviewhost-authenticator-\(UUID().uuidString.prefix(13)).sock"
    }

    private func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread { [self] in
            defer { threads.leave() }
            body()
        }
        thread.name = name
        thread.start()
    }

    private func acceptConnections() {
        defer { listener.close() }
        while true {
            guard listener.waitReadable(orStop: stopSignal, timeoutMilliseconds: -1) == .readable else { return }
            guard let connection = listener.accept() else { continue }
            let accepted = update { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.insert(connection.rawValue)
                state.observations.connections += 1
                return true
            }
            guard accepted else {
                connection.close()
                return
            }
            startThread(name: "VirtualAuthenticator connection") { [self] in
                CTAPHIDConnection(socket: connection, core: self).serve()
                state.withLock { _ = $0.connections.remove(connection.rawValue) }
                connection.close()
            }
        }
    }

    /// Ends the threads and removes the socket; only the first call does anything.
    func stop() {
        let first = cleanup.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        let waiting = state.withLock { state in
            state.stopped = true
            // Under the lock: a connection removes itself before closing, so these are still ours.
            for descriptor in state.connections { SocketDescriptor(rawValue: descriptor).shutdown() }
            let waiting = state.waiters.values.map(\.continuation)
            state.waiters.removeAll()
            return waiting
        }
        for continuation in waiting { continuation.resume(returning: false) }
        stopTrigger.signal()
        // The threads wake at once (the stop signal, the shut-down sockets); the bound only
        // keeps a bug from hanging the caller.
        if threads.wait(timeout: .now() + 10) == .success {
            stopTrigger.close()
            stopSignal.close()
        }
        unlink(socketPath)
    }

    // MARK: Changes and waiters

    /// Changes the state and wakes the waiters whose condition now holds.
    @discardableResult
    func update<T>(_ body: (inout AuthenticatorState) -> T) -> T {
        let (result, ready) = state.withLock { state in
            let result = body(&state)
            return (result, state.takeSatisfiedWaiters())
        }
        for continuation in ready { continuation.resume(returning: true) }
        return result
    }

    func updateThrowing<T, E: Error>(_ body: (inout AuthenticatorState) throws(E) -> T) throws(E) -> T {
        let outcome: (Result<T, E>, [CheckedContinuation<Bool, Never>]) = state.withLock { state in
            let result: Result<T, E>
            do throws(E) {
                result = .success(try body(&state))
            } catch {
                result = .failure(error)
            }
            return (result, state.takeSatisfiedWaiters())
        }
        for continuation in outcome.1 { continuation.resume(returning: true) }
        return try outcome.0.get()
    }

    func newWaiterID() -> Int {
        state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
    }

    func addWaiter(
        id: Int, condition: @escaping @Sendable (VirtualAuthenticator.Observations) -> Bool,
        continuation: CheckedContinuation<Bool, Never>
    ) {
        let immediate: Bool? = state.withLock { state in
            if state.abandonedWaiters.remove(id) != nil || state.stopped { return false }
            if condition(state.observations) { return true }
            state.waiters[id] = AuthenticatorState.Waiter(condition: condition, continuation: continuation)
            return nil
        }
        if let immediate { continuation.resume(returning: immediate) }
    }

    /// Ends a wait (its timeout passed, or its condition held): resumes it with `false` if it is
    /// still waiting, or makes sure it never starts.
    func removeWaiter(id: Int) {
        let waiting = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if let waiter = state.waiters.removeValue(forKey: id) { return waiter.continuation }
            state.abandonedWaiters.insert(id)
            return nil
        }
        waiting?.resume(returning: false)
    }
}
