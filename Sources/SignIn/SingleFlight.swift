import Synchronization

/// One run of a job per key at a time: a caller that finds the job for its key running waits for
/// that run's value instead of starting another (single flight). The next call after a run
/// ended starts a new one.
final class SingleFlight<Value: Sendable>: Sendable {
    private let running = Mutex<[String: Task<Value, Never>]>([:])

    /// The value of the run for `key` in progress, else of a new run of `work` (in a task of its
    /// own, so a caller's cancellation does not end it for the others).
    func run(_ key: String, _ work: @escaping @Sendable () async -> Value) async -> Value {
        let flight = running.withLock { running in
            if let task = running[key] { return task }
            let task = Task { await work() }
            running[key] = task
            return task
        }
        let value = await flight.value
        running.withLock { running in
            if running[key] == flight { running[key] = nil }
        }
        return value
    }
}
