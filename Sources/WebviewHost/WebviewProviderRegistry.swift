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

    /// The policy that resolves ``WebviewType/default`` and the other types for every session
    /// whose parameters carry none of their own (``WebviewParameters/selectionPolicy``).
    /// Replace it to choose providers your own way for the whole process (or, inside
    /// ``withIsolatedRegistry(isolation:_:)``, for that scope).
    public static var selectionPolicy: any WebviewSelectionPolicy {
        get { ProviderStore.current.selectionPolicy }
        set { ProviderStore.current.selectionPolicy = newValue }
    }

    /// Runs `body` with a new, empty registry (and its own one-session slot), visible only to
    /// the current task and its children. For tests, including plugin authors' tests.
    ///
    /// The toolkit's device-code window (``DeviceCodeWindows/present``), ``ProxyAuthentication/ask``,
    /// ``WebviewLocalization/languages`` and ``WebviewLocalization/catalogDirectory``, and the
    /// settings of the modules above the host that live in this store (the embedded provider's
    /// `applicationID`, `allowedPermissions` and `followsDesktopColorScheme`) start as the enclosing registry's;
    /// setting them inside changes them for `body` only. The embedded provider's remembered
    /// client-certificate choices start empty. The toolkit integration of `GLibSupport`, which
    /// cannot see this store, has its own scope (`ToolkitIntegration.withIsolatedIntegration`).
    public static func withIsolatedRegistry<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await ProviderStore.scope.withIsolated(isolation: isolation, body)
    }
}

/// The storage behind ``WebviewProviderRegistry``: the providers (a ``PluginRegistry``), the
/// selection policy, the one-session slot and the ``ScopedSetting`` values (the toolkit's
/// device-code window among them), one of each per ``TaskLocalStore`` scope.
final class ProviderStore: Sendable {
    /// The process's store, or the current task's isolated one.
    static let scope = TaskLocalStore { ProviderStore(enclosing: $0) }
    static var current: ProviderStore { scope.current }

    /// An empty store; the inherited settings are the enclosing store's.
    init(enclosing: ProviderStore?) {
        settings = Mutex(enclosing?.inheritedSettings ?? [:])
    }

    private let registry = PluginRegistry<WebviewProviderID, any WebviewProvider>(id: \.id, priority: \.priority)
    private let policy = Mutex<any WebviewSelectionPolicy>(DefaultWebviewSelectionPolicy())
    /// One interactive session at a time for everything that uses this store.
    let slot = InteractiveSessionSlot()
    /// The ``ScopedSetting`` values, by setting.
    let settings: Mutex<[ObjectIdentifier: ScopedSettingEntry]>

    func register(_ provider: any WebviewProvider) {
        registry.register(provider)
    }

    func unregister(_ id: WebviewProviderID) -> Bool {
        registry.unregister(id)
    }

    var providers: [any WebviewProvider] { registry.all }

    func provider(withID id: WebviewProviderID) -> (any WebviewProvider)? {
        registry.plugin(withID: id)
    }

    var selectionPolicy: any WebviewSelectionPolicy {
        get { policy.withLock { $0 } }
        set { policy.withLock { $0 = newValue } }
    }

    /// The provider for `parameters`, as their own ``WebviewParameters/selectionPolicy`` chooses,
    /// or this store's policy when they have none: the one place the host consults a policy.
    func selectProvider(for parameters: WebviewParameters, in environment: WebviewEnvironment) throws(WebAuthError) -> any WebviewProvider {
        try (parameters.selectionPolicy ?? selectionPolicy).selectProvider(for: parameters, among: providers, in: environment)
    }
}
