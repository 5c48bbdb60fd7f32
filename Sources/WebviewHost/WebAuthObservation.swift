import Dispatch
import Synchronization

/// A running observation of sessions' events, its handler called on the main actor; from
/// ``WebAuthSession/observe(_:)`` (one session) or ``WebAuthSession/observeAll(_:)`` (every
/// session in the process).
///
/// Keep it for as long as you want the events: the handler is no longer called after
/// ``invalidate()``, or once the observation is released. From the main actor (inside a handler
/// included) that takes effect at once, for the event being delivered too; from another thread, a
/// call that was already under way on the main actor still finishes. Safe to keep and invalidate
/// from any thread.
public final class WebAuthObservation: Sendable {
    typealias Handler = @MainActor (WebAuthStep) -> Void

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

    /// Stops the observation and releases the handler, on the main thread (what it captured may
    /// be main-actor state). Has no effect if called more than once. Any thread.
    public func invalidate() {
        let parcel = ReleasedHandler()
        let wasValid = handler.withLock { handler in
            // Moved, not copied: the parcel holds the only reference, so it is released where the parcel is emptied.
            parcel.handler = handler
            handler = nil
            return parcel.handler != nil
        }
        guard wasValid else { return }
        list.remove(ObjectIdentifier(self))
        if MainContext.isCurrent {
            parcel.handler = nil
        } else {
            DispatchQueue.main.async { parcel.handler = nil }
        }
    }

    /// Carries a handler to the main thread to be released there; touched by one thread at a time.
    private final class ReleasedHandler: @unchecked Sendable {
        var handler: Handler?
    }

    /// Whether the handler can still be called: `false` once invalidated or released, and for a
    /// session's observation once the session delivered its terminal event.
    public var isValid: Bool {
        handler.withLock { $0 != nil }
    }

    /// Calls the handler unless the observation was invalidated.
    @MainActor
    func deliver(_ step: WebAuthStep) {
        guard let handler = handler.withLock({ $0 }) else { return }
        handler(step)
    }
}
