import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a child's standard output on a thread of its own, one chunk at a time, and hands each
/// chunk to the main queue; the next read waits until the main queue has taken the chunk, so a
/// flooding child cannot fill the app's memory faster than the host can judge it.
///
/// Not a `DispatchSource`: on Linux, libdispatch's epoll bookkeeping can crash the process when
/// read sources on pipes are created and cancelled in quick succession
/// (swift-corelibs-libdispatch issue 949, the crash in `_dispatch_event_loop_drain` seen here
/// too). A blocking `poll` on the pipe and on a wake-up pipe never registers the descriptor
/// with libdispatch, and ``stop()`` ends the thread even if something the child started still
/// holds the pipe open. The thread closes the descriptor and its wake-up pipe when it ends.
final class OutputReader: Sendable {
    private let fd: Int32
    private let wake: (read: Int32, write: Int32)
    private let taken = DispatchSemaphore(value: 0)
    private let stopped = Mutex(false)

    /// - Parameters:
    ///   - onChunk: called on the main queue with each chunk read.
    ///   - onEnd: called on the main queue once, at end of file or a read error (not after ``stop()``).
    init?(fd: Int32, onChunk: @escaping @Sendable @MainActor ([UInt8]) -> Void, onEnd: @escaping @Sendable @MainActor () -> Void) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for descriptor in fds { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        self.fd = fd
        wake = (fds[0], fds[1])
        let thread = Thread { [self] in run(onChunk: onChunk, onEnd: onEnd) }
        thread.name = "WebviewHost external provider output"
        thread.start()
    }

    /// Stops reading; no chunk or end is delivered after this returns (on the main actor).
    func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        taken.signal()
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    private func run(onChunk: @escaping @Sendable @MainActor ([UInt8]) -> Void, onEnd: @escaping @Sendable @MainActor () -> Void) {
        defer {
            close(fd)
            close(wake.read)
            close(wake.write)
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var descriptors = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if descriptors[1].revents != 0 || isStopped { return }
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            if count <= 0 { break }
            let bytes = Array(chunk[0..<count])
            DispatchQueue.main.async { [self] in
                MainActor.assumeIsolated {
                    if !isStopped { onChunk(bytes) }
                }
                taken.signal()
            }
            taken.wait()
            if isStopped { return }
        }
        DispatchQueue.main.async { [self] in
            MainActor.assumeIsolated {
                if !isStopped { onEnd() }
            }
        }
    }
}
