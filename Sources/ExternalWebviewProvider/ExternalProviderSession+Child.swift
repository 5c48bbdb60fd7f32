import Foundation
import WebviewHost

#if canImport(Glibc)
    import Glibc
#endif

/// The session's child process: started with two pipes, written to without ever blocking the
/// main thread, its output cut into lines, and its end (exit or closed output) turned into an
/// error with the exit status. Nothing here polls: the output and the child's exit are waited for
/// by the ``OutputReader``'s thread (the exit through a pidfd), room in a full input pipe by a
/// ``WritableWait``, and a line's deadline by a timer set for that moment.
extension ExternalProviderSession {
    /// Starts the child with a pipe for its input and one for its output, and reads the output
    /// from now on; throws `externalProviderFailed` when it cannot start.
    func start() throws(WebAuthError) {
        let child: ChildProcess
        do {
            child = try ChildProcess(provider.descriptor.arguments, standardInput: .pipe, standardOutput: .pipe)
        } catch {
            throw WebAuthError(
                .externalProviderFailed, "\(name) could not be started: \(error).", underlyingError: error)
        }
        self.child = child
        guard let input = child.standardInput, let output = child.standardOutput else { return }
        self.input = input
        // Writes never block the main thread: a plugin that stops reading is a protocol error.
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
        guard
            let reader = OutputReader(
                fd: output, exit: child.exitDescriptor(), exitGrace: Self.exitGrace,
                onChunk: { [weak self] chunk in self?.received(chunk) },
                onEnd: { [weak self] in self?.endedOutput() })
        else {
            close(output)
            throw WebAuthError(.externalProviderFailed, "\(name) could not be started: no pipe for its output.")
        }
        self.reader = reader
    }

    /// Stops reading the child's output and drops any unfinished line. Calling it again does nothing.
    func stopReading() {
        reader?.stop()
        reader = nil
        buffer = []
    }

    /// Writes `message` to the child's input without blocking the main thread: what the pipe
    /// cannot take now is written as the plugin reads. A plugin that leaves a line unread for
    /// ``ExternalProvider/Limits/inputReadTimeout`` ends the session with a protocol error. Does
    /// nothing once the input is closed.
    func send(_ message: HostMessage) {
        guard input >= 0 else { return }
        let type: String
        switch message {
        case .prepare(let url, _):
            (type, longestURLSent) = ("prepare", max(longestURLSent, url.absoluteString.utf8.count))
        case .present(let url, _):
            (type, longestURLSent) = ("present", max(longestURLSent, url.absoluteString.utf8.count))
        case .brokerUnavailable(let url):
            (type, longestURLSent) = ("brokerUnavailable", max(longestURLSent, url.absoluteString.utf8.count))
        case .hello: type = "hello"
        case .dismiss: type = "dismiss"
        }
        let data = message.line
        if data.count > 64 * 1024 {
            // A long authorization URL: make the pipe hold the whole line (F_SETPIPE_SZ, up to
            // /proc/sys/fs/pipe-max-size, 1 MiB by default), so one write usually takes it.
            _ = fcntl(input, Self.setPipeSize, Int32(clamping: data.count))
        }
        inputQueue.append(Array(data), type: type, readBy: .now + provider.limits.inputReadTimeout)
        writeInput()
        if phase != .dismissed { watchInput() }
    }

    /// Writes what the pipe takes now of the bytes still to write.
    private func writeInput() {
        while input >= 0, !inputQueue.unwritten.isEmpty {
            let count = inputQueue.unwritten.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if count > 0 {
                inputQueue.wrote(count)
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EPIPE {
                // It closed its input or exited: the end of its output says so, with the status.
                stopWatchingInput()
                close(input)
                input = -1
                inputQueue = InputQueue()
            }
            return  // EAGAIN: the pipe is full until the plugin reads
        }
    }

    /// While a line is unread, waits for the two events that matter: room in the pipe for the
    /// bytes still to write (a ``WritableWait``), and the first unread line's deadline (a timer
    /// then, not before). Does nothing for what it already waits for.
    private func watchInput() {
        guard input >= 0, phase != .dismissed, phase != .broken else { return }
        if !inputQueue.unwritten.isEmpty, inputRoom == nil {
            inputRoom = WritableWait(fd: input) { [weak self] in self?.inputHasRoom() }
        }
        guard inputDeadline == nil, let deadline = inputQueue.firstDeadline else { return }
        let timer = DispatchWorkItem { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.inputDeadline = nil
                self.inputDeadlinePassed()
            }
        }
        inputDeadline = timer
        let wait = max(.zero, deadline - .now)
        let nanoseconds = wait.components.seconds * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000
        DispatchQueue.main.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds)), execute: timer)
    }

    /// The pipe can take more (or the plugin closed it): writes, and waits again if need be.
    private func inputHasRoom() {
        inputRoom = nil
        guard input >= 0, phase != .dismissed, phase != .broken else { return }
        writeInput()
        watchInput()
    }

    /// The first unread line's deadline came: the session ends if the plugin still has not read
    /// it; otherwise the next line's deadline is waited for.
    private func inputDeadlinePassed() {
        guard input >= 0, phase != .dismissed, phase != .broken else { return }
        writeInput()
        guard input >= 0 else { return }
        var unreadInPipe: Int32 = 0
        if ioctl(input, UInt(Self.bytesToRead), &unreadInPipe) != 0 { unreadInPipe = 0 }
        if let late = inputQueue.late(unreadInPipe: Int(unreadInPipe), now: .now) {
            let seconds = provider.limits.inputReadTimeout.components.seconds
            endWithError(
                WebAuthError(
                    .externalProviderProtocol,
                    "\(name) did not read the host's \(late) message from its standard input within \(seconds) s (it stopped reading)."))
            return
        }
        watchInput()
    }

    /// Stops waiting for room in the pipe and for a line's deadline (the input is being closed).
    func stopWatchingInput() {
        inputRoom?.cancel()
        inputRoom = nil
        inputDeadline?.cancel()
        inputDeadline = nil
    }

    /// `FIONREAD`: the bytes in a pipe not yet read (on either end, in Linux).
    private static let bytesToRead: Int32 = 0x541B

    /// `F_SETPIPE_SZ` (Linux), which Swift's Glibc module does not import.
    private static let setPipeSize: Int32 = 1031

    private func received(_ chunk: [UInt8]) {
        // Only the new bytes can end a line (what was kept held no newline), so a long line that
        // comes in many chunks is searched once; the lines read are dropped at once, at the end.
        var searchFrom = buffer.count
        buffer += chunk
        var start = 0
        while let newline = buffer[searchFrom...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = buffer[start..<newline]
            start = newline + 1
            searchFrom = start
            guard isReading else { break }
            guard line.count <= lineLimit else {
                endWithError(
                    WebAuthError(
                        .externalProviderProtocol, "\(name) wrote a line longer than \(lineLimit) bytes; the host reads no further."))
                return
            }
            handle(line: line)
            if buffer.isEmpty { return }  // the session stopped reading, and dropped the rest
        }
        buffer.removeFirst(start)
        if buffer.count > lineLimit {
            endWithError(
                WebAuthError(
                    .externalProviderProtocol, "\(name) wrote a line longer than \(lineLimit) bytes; the host reads no further."))
        }
    }

    /// Whether the child's output still matters: not after the outcome, a violation or dismiss.
    private var isReading: Bool {
        reader != nil && phase != .broken && phase != .dismissed
    }

    /// It exited (the kernel says so, whoever still holds its output) or closed its output. The
    /// reader waited up to ``exitGrace`` for the exit after a closed output, so the status is
    /// there unless the child still runs; it says more to the person than "it ended".
    private func endedOutput() {
        stopReading()
        guard phase != .dismissed, phase != .broken, !reporter.isFinished || waiter != nil else { return }
        var message = "\(name) ended before the sign-in finished"
        if let status = child?.exitStatusIfExited() { message += " (\(status))" }
        endWithError(WebAuthError(.externalProviderFailed, message + "; its own messages, if any, are on standard error."))
    }

    /// How long the end of the child's output waits for its exit (the exit status) before the
    /// session ends without it.
    static let exitGrace: Duration = .milliseconds(200)
}

/// The host's side of the plugin's standard input: bytes not written yet (the pipe was full), and
/// each line's end (counted in bytes since the start) with the moment it must have been read by.
struct InputQueue {
    var unwritten: [UInt8] = []
    /// Bytes written to the pipe so far.
    private(set) var written = 0
    /// Lines not yet known to be read: where each ends, its deadline, its message type.
    private(set) var lines: [(end: Int, deadline: ContinuousClock.Instant, type: String)] = []

    mutating func append(_ line: [UInt8], type: String, readBy deadline: ContinuousClock.Instant) {
        let end = written + unwritten.count + line.count
        unwritten += line
        lines.append((end, deadline, type))
    }

    mutating func wrote(_ count: Int) {
        unwritten.removeFirst(count)
        written += count
    }

    /// The deadline of the first line not yet known to be read (the earliest: deadlines follow the
    /// order of the lines).
    var firstDeadline: ContinuousClock.Instant? { lines.first?.deadline }

    /// The type of the first line still unread at or past its deadline, if any; forgets the lines read.
    mutating func late(unreadInPipe: Int, now: ContinuousClock.Instant) -> String? {
        let read = written - unreadInPipe
        lines.removeAll { $0.end <= read }
        guard let first = lines.first, first.deadline <= now else { return nil }
        return first.type
    }
}
