import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits until a pipe's write end can take more bytes, or its reader is gone (`poll` for
/// `POLLOUT`, which also ends on `POLLERR`/`POLLHUP`), on a thread of its own, and then calls
/// `then` once on the main queue. Used for a plugin's standard input while the pipe is full:
/// the host writes the rest when the plugin has read, instead of looking every so often.
///
/// Not a `DispatchSource`, for the reason ``OutputReader`` gives (libdispatch's epoll
/// bookkeeping on pipes). The thread polls its own duplicate of the descriptor, so the owner may
/// close its descriptor at any time; call ``cancel()`` before (or when) it does, so the duplicate
/// is closed too and the plugin sees its input end.
final class WritableWait: Sendable {
    private let fd: Int32
    private let cancelled: StopSignal

    /// - Parameters:
    ///   - fd: the pipe's write end (duplicated; the caller keeps its own).
    ///   - then: called on the main queue once the pipe has room or its reader closed it (not
    ///     after ``cancel()``).
    /// - Returns: `nil` when the duplicate or the wake-up pipe cannot be made.
    init?(fd: Int32, then: @escaping @Sendable @MainActor () -> Void) {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else { return nil }
        guard let cancelled = StopSignal() else {
            close(copy)
            return nil
        }
        self.fd = copy
        self.cancelled = cancelled
        let thread = Thread { [self] in
            // Named for stacks and tests: Foundation names the system thread only from itself (15 characters at most).
            Thread.current.name = "wvh-ext-input"
            run(then: then)
        }
        thread.start()
    }

    /// Ends the wait; `then` is not called after this returns (on the main actor). Calling it
    /// again does nothing.
    func cancel() {
        cancelled.raise()
    }

    private var isCancelled: Bool { cancelled.isRaised }

    private func run(then: @escaping @Sendable @MainActor () -> Void) {
        var descriptors = [
            pollfd(fd: fd, events: Int16(POLLOUT), revents: 0), pollfd(fd: cancelled.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        while poll(&descriptors, 2, -1) < 0, errno == EINTR {}
        close(fd)
        guard descriptors[1].revents == 0, !isCancelled else { return }
        DispatchQueue.main.async { [self] in
            MainActor.assumeIsolated {
                if !isCancelled { then() }
            }
        }
    }
}
