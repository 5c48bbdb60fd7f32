public import Foundation
import Synchronization

/// A FIDO2 security key for tests: it serves CTAPHID reports on a Unix socket, the wire
/// `SecurityKeys` reads instead of `/dev/hidraw` when `WEBVIEWHOST_VIRTUAL_AUTHENTICATORS` names
/// the socket.
///
/// Shaped as WebAuthn's automation model (virtual authenticators): ``Options`` carries the
/// protocol, transport, `hasResidentKey`, `hasUserVerification`, `isUserConsenting` and
/// `isUserVerified`, and credentials are added, listed and removed as ``Credential`` values. On
/// top of that: a client PIN with retries, a user-presence mode that waits for ``touch()`` or
/// never answers, and ``Observations`` of what the authenticator saw.
///
/// It speaks CTAP 2.0 or 2.1 (`authenticatorGetInfo`, `MakeCredential`, `GetAssertion`,
/// `GetNextAssertion`, `ClientPIN` with PIN/UV protocols 1 and 2, `Reset`, `Selection`) and U2F
/// (`REGISTER`, `AUTHENTICATE`, `VERSION`) over `CTAPHID_MSG`. Only ES256 credentials.
///
/// Thread-safe. It serves on threads of its own (one listening, one per connection), never the
/// main thread; ``stop()`` ends them and removes the socket, and runs when the value is released.
public final class VirtualAuthenticator: Sendable {
    private let core: AuthenticatorCore

    /// The path of the socket the authenticator serves, one connection per opening of the device.
    public var socketPath: String { core.socketPath }

    /// Creates the socket at `socketPath` (a new path in the temporary directory when `nil`) and
    /// starts serving it.
    ///
    /// - Throws: ``VirtualAuthenticatorError`` when the socket cannot be created (the path
    ///   exists, is too long, or its folder is not writable) or `options.pin` is not a valid PIN.
    public init(options: Options = Options(), socketPath: String? = nil) throws(VirtualAuthenticatorError) {
        if let pin = options.pin, !ClientPINPolicy.isAcceptable(Array(pin.utf8)) {
            throw VirtualAuthenticatorError(.invalidOptions, "A PIN has 4 to 63 bytes of UTF-8; \"\(pin)\" has not.")
        }
        core = try AuthenticatorCore.start(options: options, socketPath: socketPath)
    }

    deinit { core.stop() }

    /// Stops serving: closes the socket and every connection, and removes the socket file. A
    /// request waiting for presence gets no answer. Has no effect if called more than once.
    public func stop() { core.stop() }

    /// The options now in effect.
    public var options: Options { core.state.withLock { $0.options } }

    /// Whether the person agrees when presence is asked, from the next request on (a request
    /// already waiting for ``touch()`` is not affected).
    public func setUserConsenting(_ isUserConsenting: Bool) {
        core.update { $0.options.isUserConsenting = isUserConsenting }
    }

    /// Whether built-in user verification succeeds (automation: "Set User Verified").
    public func setUserVerified(_ isUserVerified: Bool) {
        core.update { $0.options.isUserVerified = isUserVerified }
    }

    /// How presence is given from the next request on.
    public func setUserPresence(_ userPresence: UserPresence) {
        core.update { $0.options.userPresence = userPresence }
    }

    /// Touches the key: the request waiting for presence in ``UserPresence/waitForTouch`` mode
    /// goes on. A touch given before any request waits is kept for the next one, so a test
    /// need not race the client.
    public func touch() {
        core.update { $0.pendingTouches += 1 }
    }

    /// Unplugs and plugs the key back: clears the "three wrong PINs in a row" block
    /// (`CTAP2_ERR_PIN_AUTH_BLOCKED`), forgets PIN tokens and makes a new key-agreement key.
    /// Credentials, the PIN and its retry counter stay.
    public func powerCycle() {
        core.update { $0.powerCycle() }
    }

    /// PIN attempts left before the key blocks its PIN (8 after a right PIN; 0 means blocked).
    public var pinRetries: Int { core.state.withLock { $0.pin.retries } }

    /// The PIN now set (`nil` when none), as set by ``Options/pin`` or a client's setPIN/changePIN.
    public var pin: String? {
        core.state.withLock { state in state.pin.pin.map { String(decoding: $0, as: UTF8.self) } }
    }

    // MARK: Credentials (automation: Add, Get, Remove, Remove All Credentials)

    /// Adds a credential, as if a client had made it.
    ///
    /// - Throws: ``VirtualAuthenticatorError`` when the private key is not a P-256 PKCS #8 key,
    ///   the id is empty or longer than 255 bytes or used already, or the credential is resident
    ///   on an authenticator without resident keys.
    public func addCredential(_ credential: Credential) throws(VirtualAuthenticatorError) {
        let stored = try StoredCredential(credential)
        try core.updateThrowing { (state) throws(VirtualAuthenticatorError) in
            if stored.isResident, !state.options.hasResidentKey {
                throw VirtualAuthenticatorError(.invalidCredential, "This authenticator has no resident keys (hasResidentKey is false).")
            }
            guard !state.credentials.contains(where: { $0.id == stored.id }) else {
                throw VirtualAuthenticatorError(.invalidCredential, "A credential with this id is on the authenticator already.")
            }
            state.credentials.append(stored)
        }
    }

    /// The credentials on the authenticator, oldest first, with their current sign counts.
    public func credentials() -> [Credential] {
        core.state.withLock { $0.credentials.map(\.credential) }
    }

    /// Removes the credential with this id; returns whether there was one.
    @discardableResult
    public func removeCredential(id: Data) -> Bool {
        core.update { state in
            let before = state.credentials.count
            state.credentials.removeAll { $0.id == Array(id) }
            return state.credentials.count != before
        }
    }

    /// Removes every credential.
    public func removeAllCredentials() {
        core.update { $0.credentials.removeAll() }
    }

    // MARK: What it saw

    /// What the authenticator has seen so far.
    public var observations: Observations { core.state.withLock { $0.observations } }

    /// Waits until `condition` holds for ``observations`` (checked now and after every change),
    /// or until `timeout` passes or the task is cancelled; returns whether it held.
    ///
    /// ```swift
    /// #expect(await authenticator.waitUntil(timeout: .seconds(30)) { $0.isWaitingForTouch })
    /// authenticator.touch()
    /// ```
    public func waitUntil(
        timeout: Duration, _ condition: @escaping @Sendable (Observations) -> Bool
    ) async -> Bool {
        let core = self.core
        let id = core.newWaiterID()
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    core.addWaiter(id: id, condition: condition, continuation: continuation)
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            core.removeWaiter(id: id)
            group.cancelAll()
            return first
        }
    }
}
