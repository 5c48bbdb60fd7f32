import Foundation
import WebviewHost

#if canImport(Glibc)
    import Glibc
#endif

/// The session's child process: started with two pipes, written to without ever blocking the
/// main thread, its output cut into lines, and its end (exit or closed output) turned into an
/// error with the exit status.
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
                fd: output, exit: child.exitDescriptor(),
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

    /// Writes `message` to the child's input without blocking; a child that stopped reading (a
    /// full pipe) ends the session with a protocol error. Does nothing once the input is closed.
    func send(_ message: HostMessage) {
        guard input >= 0 else { return }
        switch message {
        case .prepare(let url, _), .present(let url, _), .brokerUnavailable(let url):
            longestURLSent = max(longestURLSent, url.absoluteString.utf8.count)
        case .hello, .dismiss: break
        }
        let data = message.line
        if data.count > 64 * 1024 {
            // A long authorization URL: make the pipe hold the whole line (F_SETPIPE_SZ, up to
            // /proc/sys/fs/pipe-max-size, 1 MiB by default), so one write never blocks.
            _ = fcntl(input, Self.setPipeSize, Int32(clamping: data.count))
        }
        let written = data.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
        if written == data.count { return }
        if written < 0, errno == EPIPE {
            // It closed its input or exited: the end of its output says so, with the status.
            close(input)
            input = -1
            return
        }
        if phase != .dismissed {
            endWithError(
                WebAuthError(.externalProviderProtocol, "\(name) stopped reading its standard input (its pipe is full)."))
        }
    }

    /// `F_SETPIPE_SZ` (Linux), which Swift's Glibc module does not import.
    private static let setPipeSize: Int32 = 1031

    private func received(_ chunk: [UInt8]) {
        buffer += chunk
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            let line = buffer[..<newline]
            defer { if !buffer.isEmpty { buffer.removeSubrange(...newline) } }
            guard isReading else { return }
            guard line.count <= lineLimit else {
                endWithError(
                    WebAuthError(
                        .externalProviderProtocol, "\(name) wrote a line longer than \(lineLimit) bytes; the host reads no further."))
                return
            }
            handle(line: line)
        }
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

    /// It exited (the kernel says so, whoever still holds its output) or closed its output.
    /// Waits up to 200 ms for the exit status, which says more to the person than "it ended".
    private func endedOutput(attempt: Int = 0) {
        stopReading()
        guard phase != .dismissed, phase != .broken, !reporter.isFinished || waiter != nil else { return }
        let status = child?.exitStatusIfExited()
        if status == nil, attempt < 20 {
            DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(10)) { [weak self] in
                MainActor.assumeIsolated { self?.endedOutput(attempt: attempt + 1) }
            }
            return
        }
        var message = "\(name) ended before the sign-in finished"
        if let status { message += " (\(status))" }
        endWithError(WebAuthError(.externalProviderFailed, message + "; its own messages, if any, are on standard error."))
    }
}
