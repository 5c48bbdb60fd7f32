import Synchronization

/// The brokers this process can use. A namespace over one lock-protected store, like
/// ``WebviewHost/WebviewProviderRegistry``: apps register a broker (for example
/// `MicrosoftIdentityBroker`) with ``register(_:)``; a ``PublicClientApplication`` whose
/// configuration sets ``PublicClientApplicationConfiguration/usesTokenBroker`` asks them, highest
/// priority first. Tests run in an isolated registry (``withIsolatedRegistry(isolation:_:)``).
public enum TokenBrokerRegistry {
    /// Adds a broker, replacing a registered one with the same identifier.
    public static func register(_ broker: any TokenBroker) {
        TokenBrokerStore.current.register(broker)
    }

    /// Removes the broker with this identifier; returns whether one was registered.
    @discardableResult
    public static func unregister(_ id: String) -> Bool {
        TokenBrokerStore.current.unregister(id)
    }

    /// Every registered broker, highest priority first (ties by identifier).
    public static var brokers: [any TokenBroker] {
        TokenBrokerStore.current.brokers
    }

    /// Runs `body` with a new, empty registry visible only to the current task and its children.
    /// A ``PublicClientApplication`` made inside uses that registry for its whole life.
    public static func withIsolatedRegistry<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await TokenBrokerStore.$taskLocal.withValue(TokenBrokerStore(), operation: body, isolation: isolation)
    }
}

/// The storage behind ``TokenBrokerRegistry``.
final class TokenBrokerStore: Sendable {
    @TaskLocal static var taskLocal: TokenBrokerStore?
    static let global = TokenBrokerStore()
    static var current: TokenBrokerStore { taskLocal ?? global }

    private let state = Mutex<[String: any TokenBroker]>([:])

    func register(_ broker: any TokenBroker) {
        state.withLock { $0[broker.id] = broker }
    }

    func unregister(_ id: String) -> Bool {
        state.withLock { $0.removeValue(forKey: id) != nil }
    }

    var brokers: [any TokenBroker] {
        state.withLock { Array($0.values) }.sorted { ($0.priority, $1.id) > ($1.priority, $0.id) }
    }
}
