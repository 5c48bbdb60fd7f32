import Foundation
import Synchronization

/// The one way a session's events leave it: posted as `webAuth*` notifications, given to the
/// observations of ``WebAuthSession/observe(_:)`` and ``WebAuthSession/observeAll(_:)``, and
/// yielded on ``WebAuthSession/events``, in that order.
///
/// Events are delivered on the main thread in the order they were sent, from whatever thread.
/// Delivery is never re-entrant, across sessions too (an ``WebAuthSession/observeAll(_:)`` handler
/// or a notification observer with no object sees every session): an event sent while another is
/// being delivered (a `cancel()` from inside an observer, say, of that session or another) is
/// delivered after that one has reached every observer. The terminal event closes the channel;
/// anything sent after it is dropped.
final class SessionEventChannel: Sendable {
    /// The session's steps as an async sequence; finishes after the terminal event.
    let stream: AsyncStream<WebAuthEvent>
    /// The session's own ``WebAuthObservation``s.
    let observers = SessionObserverList()

    private struct Pending: Sendable {
        let event: WebAuthEvent
        let webview: WebviewHandle?
        /// The notification's object; kept alive until the event is delivered.
        let sender: WebAuthSession
        let channel: SessionEventChannel
    }

    /// Every session's events not delivered yet, in the order they were sent: one delivery at a
    /// time in the process.
    private struct Deliveries {
        var queue: [Pending] = []
        var delivering = false
    }

    private static let deliveries = Mutex(Deliveries())

    /// Whether the terminal event was sent.
    private let closed = Mutex(false)
    private let sink: AsyncStream<WebAuthEvent>.Continuation

    init() {
        (stream, sink) = AsyncStream.makeStream(of: WebAuthEvent.self)
    }

    deinit {
        sink.finish()
    }

    /// Queues `event` for delivery, unless the terminal event was already sent; from any thread.
    /// Returns `false` when the event was dropped.
    @discardableResult
    func send(_ event: WebAuthEvent, webview: WebviewHandle?, from sender: WebAuthSession) -> Bool {
        let pending = Pending(event: event, webview: webview, sender: sender, channel: self)
        let accepted = closed.withLock { closed in
            guard !closed else { return false }
            if event.isTerminal { closed = true }
            // Queued under the channel's lock, so nothing this session sends after its terminal
            // event can be queued ahead of it. (Lock order: channel, then deliveries; never back.)
            Self.deliveries.withLock { $0.queue.append(pending) }
            return true
        }
        guard accepted else { return false }
        if MainContext.isCurrent {
            Self.deliverPending()
        } else {
            DispatchQueue.main.async { Self.deliverPending() }
        }
        return true
    }

    /// Whether the terminal event was sent.
    var isClosed: Bool { closed.withLock { $0 } }

    /// Delivers everything queued, in order; returns at once when a delivery is already under
    /// way further up the stack (that one delivers what was queued meanwhile). Main thread.
    private static func deliverPending() {
        let claimed = deliveries.withLock { deliveries in
            guard !deliveries.delivering else { return false }
            deliveries.delivering = true
            return true
        }
        guard claimed else { return }
        while let next = deliveries.withLock({ deliveries -> Pending? in
            guard !deliveries.queue.isEmpty else {
                deliveries.delivering = false
                return nil
            }
            return deliveries.queue.removeFirst()
        }) {
            next.channel.deliver(next)
        }
    }

    private func deliver(_ pending: Pending) {
        // Taken first: an observation started while this event is delivered sees the next one.
        let sessionObservers = observers.snapshot
        let allSessionsObservers = SessionObserverList.allSessions.snapshot
        var userInfo = pending.event.userInfo
        if let webview = pending.webview { userInfo[WebAuthNotificationKey.webview] = webview }
        NotificationCenter.default.post(name: pending.event.notificationName, object: pending.sender, userInfo: userInfo)
        // On the main thread (or in a main-queue job): `send` delivers only there.
        MainActor.assumeIsolated {
            let step = WebAuthStep(event: pending.event, session: pending.sender, webview: pending.webview)
            sessionObservers.deliver(step)
            allSessionsObservers.deliver(step)
        }
        sink.yield(pending.event)
        if pending.event.isTerminal {
            observers.end()
            sink.finish()
        }
    }
}
