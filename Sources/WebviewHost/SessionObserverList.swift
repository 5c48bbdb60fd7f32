import Synchronization

/// The ``WebAuthObservation``s of one session (or of every session: ``allSessions``), held weakly
/// so that releasing an observation ends it, and called in the order they were added.
final class SessionObserverList: Sendable {
    /// The observations of ``WebAuthSession/observeAll(_:)``.
    static let allSessions = SessionObserverList()

    fileprivate struct Entry: Sendable {
        let id: ObjectIdentifier
        weak var observation: WebAuthObservation?
    }

    private struct State {
        var entries: [Entry] = []
        var ended = false
    }

    private let state = Mutex(State())

    /// Adds `observation` at the end; `false` when the list has ended.
    func add(_ observation: WebAuthObservation) -> Bool {
        let id = ObjectIdentifier(observation)
        return state.withLock { state in
            guard !state.ended else { return false }
            state.entries.append(Entry(id: id, observation: observation))
            return true
        }
    }

    /// Removes the observation `id` names (by identity: it may be in its deinit).
    func remove(_ id: ObjectIdentifier) {
        state.withLock { state in state.entries.removeAll { $0.id == id } }
    }

    /// Invalidates every observation (releasing their handlers) and refuses new ones: the session
    /// delivered its terminal event.
    func end() {
        let entries = state.withLock { state in
            defer {
                state.ended = true
                state.entries = []
            }
            return state.entries
        }
        for entry in entries { entry.observation?.invalidate() }
    }

    /// The observations in the list now, to deliver one event to: those added while it is being
    /// delivered see the next one.
    var snapshot: Snapshot { Snapshot(entries: state.withLock { $0.entries }) }

    /// The observations an event goes to.
    struct Snapshot: Sendable {
        fileprivate let entries: [Entry]

        /// Gives `step` to each observation, in order, skipping those invalidated or released
        /// meanwhile (by an earlier handler, say). No lock is held while a handler runs: a handler
        /// may add or invalidate observations, or cancel its session.
        @MainActor
        func deliver(_ step: WebAuthStep) {
            for entry in entries {
                entry.observation?.deliver(step)
            }
        }
    }
}
