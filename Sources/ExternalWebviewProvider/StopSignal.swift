import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A stop that a thread blocked in `poll` sees: a flag set once, and a pipe whose read end
/// (``descriptor``) becomes readable when it is set. ``OutputReader`` and ``WritableWait`` each
/// poll it beside the descriptor they wait on. The pipe lives as long as the signal, so a stop
/// after the polling thread ended never writes to a descriptor number given to something else.
final class StopSignal: Sendable {
    private let pipeEnds: (read: Int32, write: Int32)
    private let raised = Mutex(false)

    /// `nil` when the pipe cannot be made.
    init?() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for descriptor in fds { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        pipeEnds = (fds[0], fds[1])
    }

    deinit {
        close(pipeEnds.read)
        close(pipeEnds.write)
    }

    /// The descriptor to poll for `POLLIN`: readable once ``raise()`` was called.
    var descriptor: Int32 { pipeEnds.read }

    /// Whether ``raise()`` was called.
    var isRaised: Bool { raised.withLock { $0 } }

    /// Sets the flag and wakes the poller; `false` (and nothing done) when it was set already.
    @discardableResult
    func raise() -> Bool {
        let first = raised.withLock { raised in
            defer { raised = true }
            return !raised
        }
        guard first else { return false }
        var byte: UInt8 = 1
        _ = write(pipeEnds.write, &byte, 1)
        return true
    }
}
