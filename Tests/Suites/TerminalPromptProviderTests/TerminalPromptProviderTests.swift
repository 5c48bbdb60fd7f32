import Foundation
import Synchronization
import Testing
import TerminalPromptProvider
import WebviewHost
import WebviewHostTestKit

/// A terminal made of two pipes: what the provider prints, and what the "person" types.
///
/// What is printed is read on a thread of its own from a duplicate of the screen's read end,
/// until every writer is gone (no Dispatch source: one must never see its descriptor closed
/// before it is cancelled, and the pipes close when the terminal goes).
///
/// Its pipes are close-on-exec (Foundation's `Pipe` is not): a program another test starts at the
/// same time would otherwise inherit the keyboard's write end and keep it open, so that closing the
/// keyboard never reached the session as the end of input (a CI run's session then waited its
/// 600 s timeout).
final class PipeTerminal: Sendable {
    let keyboard = PipeTerminal.closeOnExecPipe()
    let screen = PipeTerminal.closeOnExecPipe()

    /// A pipe whose ends are close-on-exec at once (Glibc's module has no `pipe2`): a child started
    /// later by this process inherits neither end.
    static func closeOnExecPipe() -> (fileHandleForReading: FileHandle, fileHandleForWriting: FileHandle) {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "pipe: errno \(errno)")
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (FileHandle(fileDescriptor: ends[0], closeOnDealloc: true), FileHandle(fileDescriptor: ends[1], closeOnDealloc: true))
    }
    private let printed = Mutex("")

    init(onPrint: (@Sendable (String, PipeTerminal) -> Void)? = nil) {
        let descriptor = fcntl(screen.fileHandleForReading.fileDescriptor, F_DUPFD_CLOEXEC, 0)
        let reader = Thread { [weak self] in
            defer { close(descriptor) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                let text = String(decoding: buffer[0..<count], as: UTF8.self)
                guard let self else { continue }
                self.printed.withLock { $0 += text }
                onPrint?(text, self)
            }
        }
        reader.start()
    }

    var provider: TerminalPromptProvider {
        TerminalPromptProvider(input: keyboard.fileHandleForReading, output: screen.fileHandleForWriting, requiresTerminal: false)
    }

    func type(_ line: String) { keyboard.fileHandleForWriting.write(Data((line + "\n").utf8)) }
    func closeKeyboard() { try? keyboard.fileHandleForWriting.close() }
    var text: String { printed.withLock { $0 } }
}

@Suite("TerminalPromptProvider, a plugin for sessions with no display")
struct TerminalPromptProviderTests {
    let redirect = URL(string: "http://127.0.0.1:8080/callback")!
    let authorization = URL(string: "https://idp.example.test/authorize?client_id=cli&state=s1")!
    let headless = WebviewEnvironment(variables: ["SSH_CONNECTION": "10.0.0.1 22"])

    @Test("With no display the default policy picks it; a wrong paste is refused, the right one signs in")
    @MainActor
    func pasteTheAddress() async throws {
        let terminal = PipeTerminal()
        try await WebviewProviderRegistry.withIsolatedRegistry {
            WebviewProviderRegistry.register(FakeWebviewProvider(id: "embedded", kind: .embeddedView, requiresDisplay: true))
            WebviewProviderRegistry.register(terminal.provider)
            let session = WebAuthSession(redirectURI: redirect, environment: headless)
            _ = try await session.prepare()
            #expect(session.provider?.id == TerminalPromptProvider.id)
            Task.detached {
                try await Task.sleep(for: .milliseconds(100))
                terminal.type("https://idp.example.test/some/other/page")
                try await Task.sleep(for: .milliseconds(100))
                terminal.type("  http://127.0.0.1:8080/callback?code=pasted&state=s1  ")
            }
            let response = try await session.start(authorizationURL: authorization, expectedState: "s1")
            #expect(response.code == "pasted")
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(terminal.text.contains(authorization.absoluteString), "the link to open is printed")
        #expect(terminal.text.contains("That is not the address"), "a wrong paste is explained")
        #expect(terminal.text.contains("Thank you"))
    }

    @Test("Input closed before the address was pasted: userCanceled, not a hang")
    @MainActor
    func inputClosed() async throws {
        let terminal = PipeTerminal()
        try await WebviewProviderRegistry.withIsolatedRegistry {
            WebviewProviderRegistry.register(terminal.provider)
            let session = WebAuthSession(redirectURI: redirect, environment: headless)
            _ = try await session.prepare()
            Task.detached {
                try await Task.sleep(for: .milliseconds(100))
                terminal.closeKeyboard()
            }
            do throws(WebAuthError) {
                _ = try await session.start(authorizationURL: authorization)
                Issue.record("signed in without a pasted address")
            } catch {
                #expect(error.code == .userCanceled)
            }
        }
    }

    @Test("Without a terminal on standard input it is unavailable, and says why")
    func needsATerminal() {
        let provider = TerminalPromptProvider(input: Pipe().fileHandleForReading, output: .standardError)
        #expect(provider.availability(in: headless).reason?.contains("not a terminal") == true)
    }

    @Test("It keeps the session contract (the person pastes the callback for each succeeding link)")
    @MainActor
    func conformance() async {
        let terminal = PipeTerminal(onPrint: { text, terminal in
            // A person who opens the link, signs in and pastes the address the browser ends on.
            guard let range = text.range(of: "mode=ok&state=") else { return }
            let state = text[range.upperBound...].prefix { !$0.isWhitespace }
            terminal.type("http://127.0.0.1:8080/callback?code=pasted&state=\(state)")
        })
        let fixture = WebviewProviderConformance.Fixture(
            redirectURI: redirect, parameters: .init(), environment: headless,
            succeedingAuthorizationURL: { _, state in URL(string: "https://idp.example.test/authorize?mode=ok&state=\(state)")! },
            pendingAuthorizationURL: { _ in URL(string: "https://idp.example.test/authorize?mode=wait")! })
        let failures = await WebviewProviderConformance.run(provider: terminal.provider, fixture: fixture)
        #expect(failures.isEmpty, "\(failures)")
    }
}
