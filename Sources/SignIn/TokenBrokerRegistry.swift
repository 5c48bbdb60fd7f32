import WebviewHost

/// The brokers this process can use. A namespace over one lock-protected store, like
/// ``WebviewHost/WebviewProviderRegistry``: apps register a broker (for example
/// `MicrosoftIdentityBroker`) with ``register(_:)``; a ``PublicClientApplication`` whose
/// configuration sets ``PublicClientApplicationConfiguration/usesTokenBroker`` asks them, highest
/// priority first. Tests run in an isolated registry (``withIsolatedRegistry(isolation:_:)``).
public enum TokenBrokerRegistry {
    /// Adds a broker, replacing a registered one with the same identifier.
    public static func register(_ broker: any TokenBroker) {
        store.current.register(broker)
    }

    /// Removes the broker with this identifier; returns whether one was registered.
    @discardableResult
    public static func unregister(_ id: String) -> Bool {
        store.current.unregister(id)
    }

    /// Every registered broker, highest priority first (ties by identifier).
    public static var brokers: [any TokenBroker] {
        store.current.all
    }

    /// Runs `body` with a new, empty registry visible only to the current task and its children.
    /// A ``PublicClientApplication`` made inside uses that registry for its whole life.
    public static func withIsolatedRegistry<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await store.withIsolated(isolation: isolation, body)
    }
}

extension TokenBrokerRegistry {
    /// The storage: WebviewHost's `PluginRegistry` of brokers, the process's or the current
    /// task's isolated one.
    static let store = TaskLocalStore { _ in PluginRegistry<String, any TokenBroker>(id: \.id, priority: \.priority) }
}
