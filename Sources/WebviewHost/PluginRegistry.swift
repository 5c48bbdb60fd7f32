import Synchronization

/// Plugins of one kind, each under its identifier, listed highest priority first (ties by
/// identifier): the store behind ``WebviewProviderRegistry`` (providers) and `SignIn`'s
/// `TokenBrokerRegistry` (token brokers), written once. Thread-safe: one `Mutex`.
///
/// Which registry a call sees (the process's, or a test's own) is ``TaskLocalStore``'s job.
package final class PluginRegistry<ID: Hashable & Comparable & Sendable, Plugin: Sendable>: Sendable {
    private let plugins = Mutex<[ID: Plugin]>([:])
    private let identifier: @Sendable (Plugin) -> ID
    private let priority: @Sendable (Plugin) -> Int

    /// An empty registry of plugins named by `id` and ranked by `priority`.
    package init(id: @escaping @Sendable (Plugin) -> ID, priority: @escaping @Sendable (Plugin) -> Int) {
        self.identifier = id
        self.priority = priority
    }

    /// Adds `plugin`, replacing a registered one with the same identifier.
    package func register(_ plugin: Plugin) {
        let id = identifier(plugin)
        plugins.withLock { $0[id] = plugin }
    }

    /// Removes the plugin with this identifier; returns whether one was registered.
    package func unregister(_ id: ID) -> Bool {
        plugins.withLock { $0.removeValue(forKey: id) != nil }
    }

    /// Every registered plugin, highest priority first (ties by identifier).
    package var all: [Plugin] {
        plugins.withLock { Array($0.values) }
            .map { (plugin: $0, id: identifier($0), priority: priority($0)) }
            .sorted { ($0.priority, $1.id) > ($1.priority, $0.id) }
            .map(\.plugin)
    }

    /// The registered plugin with this identifier.
    package func plugin(withID id: ID) -> Plugin? {
        plugins.withLock { $0[id] }
    }
}
