import Crypto

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
