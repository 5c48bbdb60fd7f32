import ExternalWebviewProvider
import Foundation
import WebviewHost

/// One terminal sign-in: writes the instructions, then reads pasted lines until one is the
/// redirect URI.
///
/// The input is read by an ``OutputReader`` (a thread polling the descriptor and a wake-up
/// pipe, stopped on dismiss, so no thread stays blocked on the terminal), not a Dispatch read
/// source: libdispatch on Linux can crash the process in its epoll bookkeeping when read
/// sources are created and cancelled in quick succession, as sessions do (the crash, in
/// `_dispatch_event_loop_drain`, was seen in this package's test run). The reader gets a
/// duplicate of the input's descriptor and closes it: the app may close its `FileHandle` as
/// soon as the session ends.
@MainActor
final class TerminalPromptSession: WebviewProviderSession {
    private let request: WebAuthRequest
    private let reporter: WebAuthSessionReporter
    private let input: FileHandle
    private let output: FileHandle
    private var reader: OutputReader?
    private var pending: [UInt8] = []

    init(request: WebAuthRequest, reporter: WebAuthSessionReporter, input: FileHandle, output: FileHandle) {
        self.request = request
        self.reporter = reporter
        self.input = input
        self.output = output
    }

    func prepare() async throws -> URL { request.redirectURI.url }

    func present(authorizationURL: URL) throws {
        let redirect = ["redirect": request.redirectURI.url.absoluteString]
        write(
            "\n" + ShownText.tr("terminal", "To sign in, open this address in a web browser:") + "\n\n    "
                + authorizationURL.absoluteString + "\n\n"
                + ShownText.tr(
                    "terminal",
                    "When you have signed in, the browser goes to an address starting with {redirect} (the page may not load; that is expected).",
                    redirect) + "\n"
                + ShownText.tr(
                    "terminal", "Copy that whole address from the browser's address bar and paste it here, then press Enter:") + "\n")
        reporter.didStartLoad(authorizationURL)
        // Close-on-exec: no program the app starts meanwhile inherits the terminal's input.
        let descriptor = fcntl(input.fileDescriptor, F_DUPFD_CLOEXEC, 0)
        guard descriptor >= 0 else {
            reporter.fail(WebAuthError(
                .providerUnavailable, "The terminal's input cannot be read (\(String(cString: strerror(errno))))."))
            return
        }
        reader = OutputReader(
            fd: descriptor,
            onChunk: { [weak self] bytes in self?.received(bytes) },
            onEnd: { [weak self] in self?.inputEnded() })
        if reader == nil {
            close(descriptor)
            reporter.fail(WebAuthError(.providerUnavailable, "The terminal's input cannot be read (no pipe for the reader)."))
        }
    }

    func dismiss() {
        reader?.stop()
        reader = nil
    }

    /// End of input: nobody can paste the address any more.
    private func inputEnded() {
        guard reader != nil else { return }
        reader = nil
        reporter.fail(WebAuthError(.userCanceled, "The input was closed before the address was pasted."))
    }

    private func received(_ bytes: [UInt8]) {
        guard reader != nil else { return }  // dismissed
        pending += bytes
        var lines: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        for line in lines {
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, !reporter.isFinished else { continue }
            if reporter.handleRedirect(text) {
                write(ShownText.tr("terminal", "Thank you; signing in.") + "\n")
                return
            }
            write(ShownText.tr(
                "terminal", "That is not the address the sign-in ends on (it starts with {redirect}). Paste it again:",
                ["redirect": request.redirectURI.url.absoluteString]) + "\n")
        }
    }

    private func write(_ text: String) {
        output.write(Data(text.utf8))
    }
}
