import Foundation
import WebviewHost

#if canImport(Glibc)
    import Glibc
#endif

/// One sign-in through an external provider: one child process, spoken to in JSON lines.
///
/// Everything runs on the main actor (the child's output is read on a thread of its own and
/// handed to the main queue in order), so the order of the plugin's lines is the order of the reports. Every way the
/// child can misbehave ends in ``endWithError(_:)``: the `prepare()` in progress throws it, or
/// the reporter fails with it; after that nothing the child writes is read.
@MainActor
final class ExternalProviderSession: WebviewProviderSession {
    private let provider: ExternalProvider
    private let request: WebAuthRequest
    private let reporter: WebAuthSessionReporter

    private enum Phase { case idle, handshake, preparing, prepared, presenting, broken, dismissed }
    private var phase = Phase.idle
    private var child: ChildProcess?
    private var input: Int32 = -1
    private var reader: OutputReader?
    private var buffer: [UInt8] = []
    private var redirectURI: RedirectURI?

    /// `prepare()` waiting for one message type, and the timer that gives up on it.
    private var waiter: (type: String, continuation: CheckedContinuation<PluginMessage, any Error>)?
    private var waitTimer: DispatchWorkItem?

    /// The longest URL the host sent the plugin, in bytes: a line echoing it always fits.
    private var longestURLSent = 0

    /// The longest line the plugin may write: the limit, or twice the longest URL the host sent
    /// plus 1 KiB if that is more (JSON may escape each `/`), so echoing the app's URL in
    /// `didStartLoad` always fits.
    private var lineLimit: Int { max(provider.limits.maxLineLength, 2 * longestURLSent + 1024) }

    /// Messages counted in the current one-second window (the flood limit).
    private var window = (start: ContinuousClock.now, count: 0)

    init(provider: ExternalProvider, request: WebAuthRequest, reporter: WebAuthSessionReporter) {
        self.provider = provider
        self.request = request
        self.reporter = reporter
    }

    private var name: String { "The sign-in provider \"\(provider.id)\"" }

    // MARK: - The session contract

    func prepare() async throws -> URL {
        guard phase == .idle else { throw WebAuthError(.invalidParameters, "prepare() was called twice.") }
        try start()
        phase = .handshake
        send(.hello)
        guard case .hello(let version, _) = try await next("hello", within: provider.limits.handshakeTimeout) else {
            throw WebAuthError(.externalProviderProtocol, "\(name) answered the handshake out of order.")
        }
        guard ProviderDescriptor.supportedProtocolVersions.contains(version), version == provider.descriptor.protocolVersion else {
            throw WebAuthError(
                .externalProviderProtocol,
                "\(name) speaks protocol version \(version), but its descriptor says \(provider.descriptor.protocolVersion) "
                    + "and this app speaks \(ProviderDescriptor.supportedProtocolVersions.map(String.init).joined(separator: ", ")); "
                    + "install a version of the provider that matches the app.")
        }
        phase = .preparing
        send(.prepare(redirectURI: request.redirectURI.url, parameters: request.parameters))
        guard case .prepared(let text) = try await next("prepared", within: provider.limits.prepareTimeout) else {
            throw WebAuthError(.externalProviderProtocol, "\(name) answered prepare out of order.")
        }
        let redirect = try acceptedRedirectURI(text)
        redirectURI = redirect
        phase = .prepared
        return redirect.url
    }

    func present(authorizationURL: URL) throws {
        guard phase == .prepared else {
            throw WebAuthError(.externalProviderFailed, "\(name) is no longer running; the sign-in cannot be shown.")
        }
        phase = .presenting
        send(.present(authorizationURL, canHandOverToSystemBrowser: reporter.canHandOverToSystemBrowser))
    }

    func dismiss() {
        guard phase != .dismissed else { return }
        phase = .dismissed
        resumeWaiter(with: .failure(.canceled()))
        if input >= 0 {
            send(.dismiss)
            close(input)
            input = -1
        }
        stopReading()
        child?.end(grace: provider.limits.dismissGrace)
    }

    // MARK: - The child

    private func start() throws(WebAuthError) {
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

    private func stopReading() {
        reader?.stop()
        reader = nil
        buffer = []
    }

    private func send(_ message: HostMessage) {
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

    // MARK: - Messages

    private func handle(line: ArraySlice<UInt8>) {
        let clock = ContinuousClock.now
        if clock - window.start >= .seconds(1) {
            window = (clock, 0)
        }
        window.count += 1
        if window.count > provider.limits.maxMessagesPerSecond {
            endWithError(
                WebAuthError(
                    .externalProviderProtocol,
                    "\(name) wrote more than \(provider.limits.maxMessagesPerSecond) messages in one second."))
            return
        }
        let trimmed = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        if trimmed.isEmpty { return }
        let message: PluginMessage
        do {
            message = try PluginMessage.parse(trimmed)
        } catch {
            endWithError(WebAuthError(.externalProviderProtocol, "\(name) wrote \(error.reason) on its standard output."))
            return
        }
        // After the outcome nothing it says matters (late answers are ignored, not errors).
        if reporter.isFinished, waiter == nil { return }

        if case .fail(let code, let text) = message {
            endWithError(WebAuthError(WebAuthError.Code(code), PluginMessage.oneLine(text, limit: PluginMessage.maxFailMessageLength)))
            return
        }
        if let waiter {
            guard waiter.type == message.type else {
                endWithError(
                    WebAuthError(
                        .externalProviderProtocol, "\(name) sent \(message.type) where the protocol expects \(waiter.type)."))
                return
            }
            resumeWaiter(with: .success(message))
            return
        }
        guard phase == .presenting else {
            endWithError(
                WebAuthError(.externalProviderProtocol, "\(name) sent \(message.type) before the host asked it to present the page."))
            return
        }
        switch message {
        case .didStartLoad(let url): reporter.didStartLoad(url)
        case .didFinishLoad(let url): reporter.didFinishLoad(url)
        case .redirect(let text):
            if !reporter.handleRedirect(text) {
                endWithError(
                    WebAuthError(
                        .externalProviderProtocol,
                        "\(name) reported a redirect that is not this session's redirect URI (\(redirectURI?.description ?? "none"))."))
            }
        case .switchToBroker(let url):
            if !reporter.switchToBroker(url) { send(.brokerUnavailable(url)) }
        case .handOverToSystemBrowser(let handOver):
            // The browser takes over (then the host dismisses this plugin), or the session ends
            // with systemBrowserRequired (the policy is never, no builder, no browser): either
            // way the plugin's next message from the host is dismiss.
            if !reporter.handOverToSystemBrowser(handOver), !reporter.isFinished {
                // Nothing moved and nothing ended (this provider is itself a system browser):
                // end rather than leave the plugin waiting for a browser that never comes.
                endWithError(.systemBrowserRequired(handOver, why: "\(name) cannot hand a sign-in to another browser."))
            }
        case .hello, .prepared, .fail:
            endWithError(WebAuthError(.externalProviderProtocol, "\(name) sent \(message.type) again while presenting."))
        }
    }

    /// The redirect URI `prepared` named, if the app may use it: the requested one, or for a
    /// loopback redirect the same URI on another port (RFC 8252 7.3). Anything else could send
    /// the code to a place the app never registered.
    private func acceptedRedirectURI(_ text: String) throws(WebAuthError) -> RedirectURI {
        let requested = request.redirectURI
        guard let url = URL(string: text), let redirect = try? RedirectURI(url) else {
            throw WebAuthError(.externalProviderProtocol, "\(name) prepared a redirect URI that is not a valid URI.")
        }
        if redirect.matches(requested.url) { return redirect }
        if requested.isLoopback, redirect.isLoopback,
            var moved = URLComponents(url: requested.url, resolvingAgainstBaseURL: false),
            let port = URLComponents(url: url, resolvingAgainstBaseURL: false)?.port
        {
            moved.port = port
            if let movedURL = moved.url, redirect.matches(movedURL) { return redirect }
        }
        throw WebAuthError(
            .externalProviderProtocol,
            "\(name) prepared the redirect URI \(redirect), which is not \(requested) (only a loopback port may change).")
    }

    // MARK: - Waiting in prepare()

    private func next(_ type: String, within limit: Duration) async throws -> PluginMessage {
        try await withCheckedThrowingContinuation { continuation in
            guard phase != .broken, phase != .dismissed, reader != nil else {
                continuation.resume(throwing: WebAuthError(.externalProviderFailed, "\(name) is no longer running."))
                return
            }
            waiter = (type, continuation)
            let timer = DispatchWorkItem { [weak self] in
                MainActor.assumeIsolated {
                    guard let self, self.waiter?.type == type else { return }
                    self.endWithError(
                        WebAuthError(
                            .externalProviderProtocol,
                            "\(self.name) did not answer \(type == "hello" ? "the handshake" : type) within \(limit)."))
                }
            }
            waitTimer = timer
            let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
            DispatchQueue.main.asyncAfter(deadline: .now() + seconds, execute: timer)
        }
    }

    /// Hands the waiting `prepare()` its message or error, once, and stops its timer.
    private func resumeWaiter(with result: Result<PluginMessage, WebAuthError>) {
        waitTimer?.cancel()
        waitTimer = nil
        let waiting = waiter
        waiter = nil
        waiting?.continuation.resume(with: result.mapError { $0 as any Error })
    }

    /// Ends the session with `error` (through `prepare()` if it waits, else the reporter) and
    /// stops reading the child; `dismiss()` ends the child.
    private func endWithError(_ error: WebAuthError) {
        guard phase != .dismissed, phase != .broken else { return }
        phase = .broken
        stopReading()
        if waiter != nil { resumeWaiter(with: .failure(error)) } else { reporter.fail(error) }
    }
}
