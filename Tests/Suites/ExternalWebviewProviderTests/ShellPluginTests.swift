import ExternalWebviewProvider
import Foundation
import ScenarioSupport
import Testing
import WebviewHost
import WebviewHostTestKit

#if canImport(Glibc)
    import Glibc
#endif

/// The bash example plugin (Plugins/terminal-prompt-sh) through the real protocol: its shipped
/// descriptor, with Exec pointed at the script and at a FIFO standing for the person's terminal.
@Suite("Plugins/terminal-prompt-sh: a bash plugin, the person pastes the address", .serialized)
@MainActor
struct ShellPluginTests {
    let pluginDirectory = Checkout.root.appendingPathComponent("Plugins/terminal-prompt-sh")

    /// A terminal: a FIFO the person types into, a file the plugin prints on.
    final class FifoTerminal: Sendable {
        let temp: TemporaryDirectory
        let keyboard: URL
        let screen: URL
        let writer: Int32

        init() throws {
            temp = try TemporaryDirectory()
            keyboard = temp.url.appendingPathComponent("keyboard")
            screen = temp.url.appendingPathComponent("screen")
            guard mkfifo(keyboard.path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
            // Read-write, so opening does not wait for the plugin; closing it is the plugin's end of input.
            writer = open(keyboard.path, O_RDWR | O_CLOEXEC)
            _ = FileManager.default.createFile(atPath: screen.path, contents: nil)
        }

        func type(_ line: String) {
            let data = Array((line + "\n").utf8)
            _ = data.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
        }

        func hangUp() { close(writer) }

        var text: String { (try? String(contentsOf: screen, encoding: .utf8)) ?? "" }

        /// Waits until the plugin printed `fragment`.
        func waitFor(_ fragment: String) async -> Bool {
            for _ in 0..<250 {
                if text.contains(fragment) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }
    }

    func provider(for terminal: FifoTerminal) throws -> ExternalProvider {
        // The shipped descriptor, with Exec pointed at the script in this checkout.
        let shipped = try String(
            contentsOf: pluginDirectory.appendingPathComponent("terminal-prompt-sh.provider"), encoding: .utf8)
        let script = pluginDirectory.appendingPathComponent("webview-host-terminal-prompt").path
        let text = shipped.replacingOccurrences(
            of: "Exec=/usr/local/libexec/webview-host-terminal-prompt",
            with: "Exec=\(script) --input \(terminal.keyboard.path) --output \(terminal.screen.path)")
        return ExternalProvider(descriptor: try ProviderDescriptor(parsing: text), limits: testLimits)
    }

    @Test("A wrong paste is refused by the plugin; the right one signs in")
    func pasteTheAddress() async throws {
        let terminal = try FifoTerminal()
        defer { terminal.hangUp() }
        let provider = try provider(for: terminal)
        #expect(provider.id == "terminal-prompt-sh")
        #expect(!provider.requiresDisplay)
        let authorizationURL = authorization("wait", state: "t1")
        try await WebviewProviderRegistry.withIsolatedRegistry {
            WebviewProviderRegistry.register(provider)
            let session = WebAuthSession(redirectURI: redirect, environment: headless)
            _ = try await session.prepare()
            #expect(session.provider?.id == "terminal-prompt-sh", "the policy picks it with no display")
            Task.detached {
                guard await terminal.waitFor("paste it here") else { return }
                terminal.type("https://idp.example.test/some/other/page")
                guard await terminal.waitFor("That is not the address") else { return }
                terminal.type("  http://127.0.0.1:8080/callback?code=pasted&state=t1  ")
            }
            let response = try await session.start(authorizationURL: authorizationURL, expectedState: "t1")
            #expect(response.code == "pasted")
        }
        #expect(terminal.text.contains(authorizationURL.absoluteString), "the link to open is printed")
        #expect(terminal.text.contains("That is not the address"), "a wrong paste is explained")
        #expect(await terminal.waitFor("Thank you"))
    }

    @Test("The terminal closed before the address was pasted: userCanceled, not a hang")
    func terminalClosed() async throws {
        let terminal = try FifoTerminal()
        let provider = try provider(for: terminal)
        await WebviewProviderRegistry.withIsolatedRegistry {
            WebviewProviderRegistry.register(provider)
            let session = WebAuthSession(redirectURI: redirect, environment: headless)
            Task.detached {
                guard await terminal.waitFor("paste it here") else { return }
                try? await Task.sleep(for: .milliseconds(100))
                terminal.hangUp()
            }
            do throws(WebAuthError) {
                _ = try await session.authenticate { _ in authorization("wait") }
                Issue.record("signed in without a pasted address")
            } catch {
                #expect(error.code == .userCanceled)
                #expect(error.message.contains("closed before the address was pasted"))
            }
        }
    }

    @Test("It keeps the session contract (a person pastes the callback for each succeeding link)")
    func conformance() async throws {
        let terminal = try FifoTerminal()
        defer { terminal.hangUp() }
        // A person who opens each succeeding link, signs in and pastes the address the browser ends on.
        let person = Task.detached {
            var seen = 0
            while !Task.isCancelled {
                let text = terminal.text
                let links = text.components(separatedBy: "mode=ok&state=").dropFirst()
                for link in links.dropFirst(seen) {
                    let state = link.prefix { !$0.isWhitespace }
                    terminal.type("http://127.0.0.1:8080/callback?code=pasted&state=\(state)")
                }
                seen = links.count
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        defer { person.cancel() }
        let fixture = WebviewProviderConformance.Fixture(
            redirectURI: redirect, parameters: .init(), environment: headless,
            succeedingAuthorizationURL: { _, state in authorization("ok", state: state) },
            pendingAuthorizationURL: { _ in authorization("wait") },
            shortTimeout: .seconds(2))
        let failures = await WebviewProviderConformance.run(provider: try provider(for: terminal), fixture: fixture)
        #expect(failures.isEmpty, "\(failures)")
    }
}
