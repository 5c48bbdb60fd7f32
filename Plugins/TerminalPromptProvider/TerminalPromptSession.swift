import Foundation
import Synchronization
import WebviewHost

/// One terminal sign-in: writes the instructions, then reads pasted lines (a Dispatch read
/// source on the input, cancelled on dismiss, so no thread stays blocked on the terminal) until
/// one is the redirect URI.
///
/// The source watches a duplicate of the input's descriptor, closed by the source's cancel
/// handler: Dispatch must see a descriptor it watches closed only after the source is
/// cancelled, and the app may close its `FileHandle` as soon as the session ends.
@MainActor
final class TerminalPromptSession: WebviewProviderSession {
    private let request: WebAuthRequest
    private let reporter: WebAuthSessionReporter
    private let input: FileHandle
    private let output: FileHandle
    private var source: (any DispatchSourceRead)?
    private let pending = Mutex<[UInt8]>([])

    init(request: WebAuthRequest, reporter: WebAuthSessionReporter, input: FileHandle, output: FileHandle) {
        self.request = request
        self.reporter = reporter
        self.input = input
        self.output = output
    }

    func prepare() async throws -> URL { request.redirectURI.url }

    func present(authorizationURL: URL) throws {
        write("""

            To sign in, open this address in a web browser:

                \(authorizationURL.absoluteString)

            When you have signed in, the browser goes to an address starting with
            \(request.redirectURI.url.absoluteString) (the page may not load; that is expected).
            Copy that whole address from the browser's address bar and paste it here, then press Enter:

            """)
        reporter.didStartLoad(authorizationURL)
        let descriptor = dup(input.fileDescriptor)
        guard descriptor >= 0 else {
            reporter.fail(WebAuthError(
                .providerUnavailable, "The terminal's input cannot be read (\(String(cString: strerror(errno))))."))
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .main)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.readAvailable(descriptor) }
        }
        source.setCancelHandler { close(descriptor) }
        self.source = source
        source.resume()
    }

    func dismiss() {
        source?.cancel()
        source = nil
    }

    private func readAvailable(_ descriptor: Int32) {
        guard source != nil else { return }  // cancelled: the descriptor may be closed already
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else {
            // End of input: nobody can paste the address any more.
            source?.cancel()
            source = nil
            reporter.fail(WebAuthError(.userCanceled, "The input was closed before the address was pasted."))
            return
        }
        let lines = pending.withLock { pending -> [String] in
            pending += buffer[0..<count]
            var lines: [String] = []
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
            return lines
        }
        for line in lines {
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, !reporter.isFinished else { continue }
            if reporter.handleRedirect(text) {
                write("Thank you; signing in.\n")
                return
            }
            write("That is not the address the sign-in ends on (it starts with \(request.redirectURI.url.absoluteString)). Paste it again:\n")
        }
    }

    private func write(_ text: String) {
        output.write(Data(text.utf8))
    }
}
