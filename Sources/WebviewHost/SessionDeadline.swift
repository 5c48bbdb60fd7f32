import Synchronization

/// A session's timeout: ends it once, unless disarmed first. Safe from any thread.
final class SessionDeadline: Sendable {
    private let timer = Mutex<Task<Void, Never>?>(nil)

    /// Starts counting `timeout`; `expire` runs once when it elapses, on no particular thread.
    /// Arming again replaces the earlier count.
    func arm(_ timeout: Duration, expire: @escaping @Sendable () -> Void) {
        let task = Task {
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            expire()
        }
        timer.withLock { current in
            current?.cancel()
            current = task
        }
    }

    /// Stops the count; `expire` will not run. Calling it again does nothing.
    func disarm() {
        timer.withLock { current in
            current?.cancel()
            current = nil
        }
    }
}
