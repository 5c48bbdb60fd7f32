import Synchronization

/// The providers this process can use, and the policy that picks among them.
///
/// A namespace over one lock-protected store. Apps register the built-ins with one call
/// (`WebviewProviderRegistry.registerBuiltInProviders()` from `BuiltInWebviewProvidersGTK3`) and
/// add plugins with ``register(_:)``. Tests run in an isolated registry
/// (``withIsolatedRegistry(isolation:_:)``) so that parallel tests do not share providers or the
/// one-session slot.
public enum WebviewProviderRegistry {
    /// Adds a provider, replacing a registered one with the same identifier.
    public static func register(_ provider: any WebviewProvider) {
        ProviderStore.current.register(provider)
    }

    /// Removes the provider with this identifier; returns whether one was registered.
    @discardableResult
    public static func unregister(_ id: WebviewProviderID) -> Bool {
        ProviderStore.current.unregister(id)
    }

    /// Every registered provider, highest priority first (ties by identifier).
    public static var providers: [any WebviewProvider] {
        ProviderStore.current.providers
    }

    /// The registered provider with this identifier.
    public static func provider(withID id: WebviewProviderID) -> (any WebviewProvider)? {
        ProviderStore.current.provider(withID: id)
    }

    /// The policy that resolves ``WebviewType/default`` and the other types.
    /// Replace it to choose providers your own way.
    public static var selectionPolicy: any WebviewSelectionPolicy {
        get { ProviderStore.current.selectionPolicy }
        set { ProviderStore.current.selectionPolicy = newValue }
    }

    /// Runs `body` with a new, empty registry (and its own one-session slot), visible only to
    /// the current task and its children. For tests, including plugin authors' tests.
    public static func withIsolatedRegistry<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await ProviderStore.$taskLocal.withValue(ProviderStore(), operation: body, isolation: isolation)
    }
}

/// The storage behind ``WebviewProviderRegistry``.
final class ProviderStore: Sendable {
    @TaskLocal static var taskLocal: ProviderStore?
    static let global = ProviderStore()
    static var current: ProviderStore { taskLocal ?? global }

    private let state = Mutex<(providers: [WebviewProviderID: any WebviewProvider], policy: any WebviewSelectionPolicy)>(
        ([:], DefaultWebviewSelectionPolicy()))
    /// One interactive session at a time for everything that uses this store.
    let slot = InteractiveSessionSlot()

    func register(_ provider: any WebviewProvider) {
        state.withLock { $0.providers[provider.id] = provider }
    }

    func unregister(_ id: WebviewProviderID) -> Bool {
        state.withLock { $0.providers.removeValue(forKey: id) != nil }
    }

    var providers: [any WebviewProvider] {
        state.withLock { Array($0.providers.values) }.sorted {
            ($0.priority, $1.id) > ($1.priority, $0.id)
        }
    }

    func provider(withID id: WebviewProviderID) -> (any WebviewProvider)? {
        state.withLock { $0.providers[id] }
    }

    var selectionPolicy: any WebviewSelectionPolicy {
        get { state.withLock { $0.policy } }
        set { state.withLock { $0.policy = newValue } }
    }
}
