import Crypto
import Dispatch
import Foundation
import Synchronization

/// What a ``VirtualAuthenticator`` is and holds, under one lock: options, credentials, the PIN,
/// the observations, and the tasks waiting on them.
struct AuthenticatorState: Sendable {
    var options: VirtualAuthenticator.Options
    var credentials: [StoredCredential] = []
    var pin: PINState
    var observations = VirtualAuthenticator.Observations()
    var pendingTouches = 0
    /// Requests blocked waiting for a touch now (one per connection at most).
    var touchWaits = 0
    var waiters: [Int: Waiter] = [:]
    /// Waiters removed before they were added (a timeout that beat the registration).
    var abandonedWaiters: Set<Int> = []
    var nextWaiterID = 0
    var nextChannel: UInt32 = 1
    /// Open connections, so that stop() can shut them down; a connection removes itself
    /// (under the lock) before it closes its descriptor.
    var connections: Set<Int32> = []
    var stopped = false
    /// Signs U2F registrations; its certificate is made once.
    let attestationKey = P256KeyBytes()
    var attestationCertificate: [UInt8]?

    struct Waiter: Sendable {
        var condition: @Sendable (VirtualAuthenticator.Observations) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
    }

    init(options: VirtualAuthenticator.Options) {
        self.options = options
        pin = PINState(pin: options.pin.map { Array($0.utf8) }, retries: options.pinRetries)
    }

    mutating func powerCycle() {
        pin.consecutiveFailures = 0
        pin.keyAgreementKey = P256KeyBytes()
        pin.token = nil
    }

    /// The credential with this id made for this relying party (by its id's hash).
    func credentialIndex(id: [UInt8], rpIdHash: [UInt8]) -> Int? {
        credentials.firstIndex { $0.id == id && $0.rpIdHash == rpIdHash }
    }

    /// Takes the waiters whose condition now holds.
    mutating func takeSatisfiedWaiters() -> [CheckedContinuation<Bool, Never>] {
        let ready = waiters.filter { $0.value.condition(observations) }
        for id in ready.keys { waiters[id] = nil }
        return ready.values.map(\.continuation)
    }
}

/// The client PIN's state (CTAP2 §6.5).
struct PINState: Sendable {
    /// The PIN's UTF-8 bytes, `nil` when none is set.
    var pin: [UInt8]?
    var retries: Int
    /// Wrong PINs in a row since the last power cycle: three block PIN use until the next.
    var consecutiveFailures = 0
    var keyAgreementKey = P256KeyBytes()
    var token: PINToken?
}

/// A pinUvAuthToken handed out by getPINToken and its permissions (CTAP 2.1 §6.5.5.7).
struct PINToken: Sendable {
    var bytes: [UInt8]
    /// `mc` 0x01, `ga` 0x02; a legacy token (getPINToken) has both.
    var permissions: UInt8
    /// The relying party the token is bound to, once one is.
    var rpId: String?
}

/// A P-256 private key kept as its 32-byte scalar: swift-crypto's key types are not `Sendable`
/// here, and the state they live in crosses threads. The same scalar serves signing and ECDH.
struct P256KeyBytes: Sendable, Hashable {
    let rawRepresentation: [UInt8]

    /// A new random key.
    init() { self.init(P256.Signing.PrivateKey()) }

    init(_ key: P256.Signing.PrivateKey) { rawRepresentation = Array(key.rawRepresentation) }

    func signingKey() throws -> P256.Signing.PrivateKey { try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation) }

    func agreementKey() throws -> P256.KeyAgreement.PrivateKey {
        try P256.KeyAgreement.PrivateKey(rawRepresentation: rawRepresentation)
    }
}

/// A credential as the authenticator keeps it.
struct StoredCredential: Sendable {
    var id: [UInt8]
    var rpId: String
    var rpIdHash: [UInt8]
    var key: P256KeyBytes
    var userHandle: [UInt8]?
    var userName: String?
    var userDisplayName: String?
    var isResident: Bool
    var signCount: UInt32
    /// When it was made: resident credentials are offered newest first.
    var created = Date()

    init(
        id: [UInt8], rpId: String, rpIdHash: [UInt8]? = nil, key: P256KeyBytes, userHandle: [UInt8]?,
        userName: String?, userDisplayName: String?, isResident: Bool, signCount: UInt32
    ) {
        self.id = id
        self.rpId = rpId
        self.rpIdHash = rpIdHash ?? Array(SHA256.hash(data: Array(rpId.utf8)))
        self.key = key
        self.userHandle = userHandle
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.isResident = isResident
        self.signCount = signCount
    }

    init(_ credential: VirtualAuthenticator.Credential) throws(VirtualAuthenticatorError) {
        let key: P256.Signing.PrivateKey
        do {
            key = try credential.signingKey()
        } catch {
            throw VirtualAuthenticatorError(.invalidCredential, "The private key is not a P-256 key in PKCS #8 DER: \(error)")
        }
        guard (1...255).contains(credential.credentialId.count) else {
            throw VirtualAuthenticatorError(
                .invalidCredential, "A credential id has 1 to 255 bytes; this one has \(credential.credentialId.count).")
        }
        if credential.isResidentCredential, credential.userHandle == nil {
            throw VirtualAuthenticatorError(.invalidCredential, "A resident credential needs a user handle.")
        }
        self.init(
            id: Array(credential.credentialId), rpId: credential.rpId, key: P256KeyBytes(key),
            userHandle: credential.userHandle.map(Array.init), userName: credential.userName,
            userDisplayName: credential.userDisplayName, isResident: credential.isResidentCredential,
            signCount: credential.signCount)
    }

    var credential: VirtualAuthenticator.Credential {
        VirtualAuthenticator.Credential(
            credentialId: Data(id), isResidentCredential: isResident, rpId: rpId,
            privateKey: (try? key.signingKey().derRepresentation) ?? Data(),
            userHandle: userHandle.map { Data($0) }, userName: userName, userDisplayName: userDisplayName,
            signCount: signCount)
    }
}

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
