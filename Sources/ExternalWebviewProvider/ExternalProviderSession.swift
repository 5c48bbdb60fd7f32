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
    // Internal, not private: the child (ExternalProviderSession+Child.swift) and the messages
    // (ExternalProviderSession+Messages.swift) are this type's other two files.
    let provider: ExternalProvider
    let request: WebAuthRequest
    let reporter: WebAuthSessionReporter

    enum Phase { case idle, handshake, preparing, prepared, presenting, broken, dismissed }
    var phase = Phase.idle
    var child: ChildProcess?
    var input: Int32 = -1
    var reader: OutputReader?
    var buffer: [UInt8] = []
    var redirectURI: RedirectURI?

    /// `prepare()` waiting for one message type, and the timer that gives up on it.
    var waiter: (type: String, continuation: CheckedContinuation<PluginMessage, any Error>)?
    private var waitTimer: DispatchWorkItem?

    /// The longest URL the host sent the plugin, in bytes: a line echoing it always fits.
    var longestURLSent = 0

    /// What the host wrote to the plugin's input and the plugin has not read yet (see
    /// ExternalProviderSession+Child.swift): bytes still to write, and each line's deadline.
    var inputQueue = InputQueue()
    /// The wait for room in the input pipe, while bytes are still to write.
    var inputRoom: WritableWait?
    /// The timer set for the first unread line's deadline.
    var inputDeadline: DispatchWorkItem?

    /// The longest line the plugin may write: the limit, or twice the longest URL the host sent
    /// plus 1 KiB if that is more (JSON may escape each `/`), so echoing the app's URL in
    /// `didStartLoad` always fits.
    var lineLimit: Int { max(provider.limits.maxLineLength, 2 * longestURLSent + 1024) }

    /// Messages counted in the current one-second window (the flood limit).
    var window = (start: ContinuousClock.now, count: 0)

    init(provider: ExternalProvider, request: WebAuthRequest, reporter: WebAuthSessionReporter) {
        self.provider = provider
        self.request = request
        self.reporter = reporter
    }

    var name: String { "The sign-in provider \"\(provider.id)\"" }

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
            stopWatchingInput()
            close(input)
            input = -1
        }
        stopReading()
        child?.end(grace: provider.limits.dismissGrace)
    }

    // MARK: - Waiting in prepare()

    /// The plugin's next message, which must be a `type`, within `limit`; throws the error the
    /// session ended with otherwise.
    func next(_ type: String, within limit: Duration) async throws -> PluginMessage {
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
    func resumeWaiter(with result: Result<PluginMessage, WebAuthError>) {
        waitTimer?.cancel()
        waitTimer = nil
        let waiting = waiter
        waiter = nil
        waiting?.continuation.resume(with: result.mapError { $0 as any Error })
    }

    /// Ends the session with `error` (through `prepare()` if it waits, else the reporter) and
    /// stops reading the child; `dismiss()` ends the child.
    func endWithError(_ error: WebAuthError) {
        guard phase != .dismissed, phase != .broken else { return }
        phase = .broken
        stopReading()
        if waiter != nil { resumeWaiter(with: .failure(error)) } else { reporter.fail(error) }
    }
}
