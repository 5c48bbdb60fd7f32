import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a child's standard output (or any descriptor: the terminal provider reads its input
/// with it) on a thread of its own, one chunk at a time, and hands each
/// chunk to the main queue; the next read waits until the main queue has taken the chunk, so a
/// flooding child cannot fill the app's memory faster than the host can judge it.
///
/// Not a `DispatchSource`: on Linux, libdispatch's epoll bookkeeping can crash the process when
/// read sources on pipes are created and cancelled in quick succession
/// (swift-corelibs-libdispatch issue 949, the crash in `_dispatch_event_loop_drain` seen here
/// too). A blocking `poll` on the pipe and on a wake-up pipe never registers the descriptor
/// with libdispatch, and ``stop()`` ends the thread even if something the child started still
/// holds the pipe open. The thread closes the child's descriptors when it ends; the wake-up pipe
/// lives as long as the reader, so ``stop()`` after the thread ended (the usual order when the
/// child exits first) never writes to a descriptor number something else has been given since.
///
/// Not GIO streams either (`GUnixInputStream`, `GDataInputStream`): their asynchronous reads
/// complete in a GLib main context, and the external provider needs none today (it delivers on
/// the Dispatch main queue, which a GTK app drains through `MainLoopBridge` and a terminal app
/// or a test runner drains itself); a blocking `g_input_stream_read` on this thread would only
/// replace `read`, and still need the `poll` below to see the stop and the child's exit.
///
/// Given the child's exit descriptor (a pidfd), the end is the child's exit, not only the end of
/// the pipe: something the child started in the background may hold its output open long after
/// it exited. What the child wrote before it exited is still delivered first.
public final class OutputReader: Sendable {
    private let fd: Int32
    private let exit: Int32?
    private let exitGrace: Duration
    private let stopped: StopSignal
    private let taken = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - fd: the descriptor to read (a pipe, a terminal); the reader owns it and closes it.
    ///   - onChunk: called on the main queue with each chunk read.
    ///   - exit: a descriptor that becomes readable when the child exits (``ChildProcess/exitDescriptor()``);
    ///     the reader owns it and closes it.
    ///   - exitGrace: with `exit`, how long an end of file (or a read error) waits for the child's
    ///     exit before `onEnd`, so that its exit status can be read there; the wait ends at the
    ///     exit (the descriptor becoming readable), or at ``stop()``.
    ///   - onEnd: called on the main queue once, at end of file, a read error or the child's exit
    ///     (not after ``stop()``).
    public init?(
        fd: Int32, exit: Int32? = nil, exitGrace: Duration = .zero,
        onChunk: @escaping @Sendable @MainActor ([UInt8]) -> Void, onEnd: @escaping @Sendable @MainActor () -> Void
    ) {
        guard let stopped = StopSignal() else {
            if let exit { close(exit) }
            return nil
        }
        self.fd = fd
        self.exit = exit
        self.exitGrace = exitGrace
        self.stopped = stopped
        let thread = Thread { [self] in
            // Named for stacks and tests: Foundation names the system thread only from itself (15 characters at most).
            Thread.current.name = "wvh-ext-output"
            run(onChunk: onChunk, onEnd: onEnd)
        }
        thread.start()
    }

    /// Stops reading; no chunk or end is delivered after this returns (on the main actor).
    public func stop() {
        guard stopped.raise() else { return }
        taken.signal()
    }

    private var isStopped: Bool { stopped.isRaised }

    private func run(onChunk: @escaping @Sendable @MainActor ([UInt8]) -> Void, onEnd: @escaping @Sendable @MainActor () -> Void) {
        defer {
            close(fd)
            if let exit { close(exit) }
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        /// Reads once and hands the bytes over; `false` at end of file, an error or a stop.
        func readOnce() -> Bool? {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { return true }
            if count < 0, errno == EAGAIN { return nil }
            if count <= 0 { return false }
            let bytes = Array(chunk[0..<count])
            DispatchQueue.main.async { [self] in
                MainActor.assumeIsolated {
                    if !isStopped { onChunk(bytes) }
                }
                taken.signal()
            }
            taken.wait()
            return !isStopped
        }
        loop: while true {
            var descriptors = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stopped.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: exit ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 3, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if descriptors[1].revents != 0 || isStopped { return }
            if descriptors[2].revents != 0 {
                // The child exited. What it wrote before is in the pipe already: deliver that
                // (one pipe's worth at most, whatever a leftover grandchild keeps writing), then the end.
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                var budget = 1024 * 1024
                while budget > 0 {
                    guard let more = readOnce() else { break }
                    if !more {
                        if isStopped { return }
                        break
                    }
                    budget -= chunk.count
                }
                break loop
            }
            switch readOnce() {
            case .some(true), .none: continue
            case .some(false):
                if isStopped { return }
                // The output ended first: the exit usually follows at once; wait for it, briefly.
                if !waitForExit() { return }
                break loop
            }
        }
        DispatchQueue.main.async { [self] in
            MainActor.assumeIsolated {
                if !isStopped { onEnd() }
            }
        }
    }

    /// Waits up to ``exitGrace`` for the exit descriptor (when there is one) to become readable;
    /// `false` when ``stop()`` came first.
    private func waitForExit() -> Bool {
        guard let exit, exitGrace > .zero else { return true }
        let end = ContinuousClock.now + exitGrace
        while true {
            let left = end - .now
            guard left > .zero else { return true }
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + (left.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            var descriptors = [pollfd(fd: exit, events: Int16(POLLIN), revents: 0), pollfd(fd: stopped.descriptor, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, milliseconds)
            if ready < 0, errno == EINTR { continue }
            if descriptors[1].revents != 0 || isStopped { return false }
            return true  // exited, timed out, or poll failed: the session reads what it can
        }
    }
}
