import Synchronization

/// A handler that receives sessions' events on the main actor, from
/// ``WebAuthSession/observe(_:)`` (one session) or ``WebAuthSession/observeAll(_:)`` (every
/// session in the process).
///
/// Keep it for as long as you want the events: the handler is no longer called after
/// ``invalidate()``, or once the observation is released. From the main actor (inside a handler
/// included) that takes effect at once, for the event being delivered too; from another thread, a
/// call that was already under way on the main actor still finishes. Safe to keep and invalidate
/// from any thread.
public final class WebAuthObservation: Sendable {
    typealias Handler = @MainActor (WebAuthSession, WebAuthEvent) -> Void

    private let handler: Mutex<Handler?>
    private let list: SessionObserverList

    /// Adds the observation to `list`; it starts invalidated when `list` takes no more observers
    /// (its session already delivered the terminal event).
    init(on list: SessionObserverList, handler: @escaping Handler) {
        self.handler = Mutex(handler)
        self.list = list
        if !list.add(self) { invalidate() }
    }

    deinit {
        invalidate()
    }

    /// Stops the observation and releases the handler (and what it captured). Has no effect if
    /// called more than once. Any thread.
    public func invalidate() {
        let released = handler.withLock { handler -> Handler? in
            defer { handler = nil }
            return handler
        }
        if released != nil { list.remove(ObjectIdentifier(self)) }
    }

    /// Whether the handler can still be called: not invalidated, and not observing a session that
    /// already delivered its terminal event.
    public var isValid: Bool {
        handler.withLock { $0 != nil } && !list.hasEnded
    }

    /// Calls the handler unless the observation was invalidated.
    @MainActor
    func deliver(_ event: WebAuthEvent, from session: WebAuthSession) {
        guard let handler = handler.withLock({ $0 }) else { return }
        handler(session, event)
    }
}
