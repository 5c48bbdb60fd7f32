/// The store a task sees: the process's, unless the task runs inside ``withIsolated(isolation:_:)``,
/// which gives it (and its child tasks) a new one of its own, as swift-metrics'
/// `withMetricsFactory` does. What lets parallel tests each have their own registry instead of
/// fighting over a global one; behind ``WebviewProviderRegistry`` and `SignIn`'s
/// `TokenBrokerRegistry`.
///
/// Keep one in a `static let`: the task-local value is keyed by this object.
package final class TaskLocalStore<Store: Sendable>: Sendable {
    private let taskLocal = TaskLocal<Store?>(wrappedValue: nil)
    private let makeStore: @Sendable (_ enclosing: Store?) -> Store
    /// The process's store.
    package let global: Store

    /// A process-wide store from `makeStore(nil)`; each isolated one is `makeStore` of the store
    /// it replaces for its task (the process's or an enclosing isolated one), for what an
    /// isolated store carries over.
    package init(_ makeStore: @escaping @Sendable (_ enclosing: Store?) -> Store) {
        self.makeStore = makeStore
        self.global = makeStore(nil)
    }

    /// The store of the current task: its isolated one, else the process's.
    package var current: Store { taskLocal.get() ?? global }

    /// Runs `body` with a new store (the initializer's `makeStore` of ``current``), visible only
    /// to the current task and its children.
    package func withIsolated<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await taskLocal.withValue(makeStore(current), operation: body, isolation: isolation)
    }
}
