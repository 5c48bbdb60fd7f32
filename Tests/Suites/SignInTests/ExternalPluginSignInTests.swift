import ExternalWebviewProvider
import Foundation
import ScenarioSupport
import Testing
import WebviewHost

@testable import SignIn

#if canImport(Glibc)
    import Glibc
#endif

/// End to end through an installed-style external provider: `acquireToken` against the real
/// Glewlwyd, with the bash example plugin (Plugins/terminal-prompt-sh) as the user agent, loaded
/// from its shipped descriptor. The "person" reads the link the plugin prints, signs in with the
/// scripted browser, and pastes the address the browser ends on into the plugin's terminal.
extension GlewlwydSignInTests {
    @Test func signsInThroughTheBashPluginFromItsDescriptor() async throws {
        let plugin = Checkout.root.appendingPathComponent("Plugins/terminal-prompt-sh")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-plugin-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The person's terminal: a FIFO they type into, a file the plugin prints on.
        let keyboard = folder.appendingPathComponent("keyboard").path
        let screen = folder.appendingPathComponent("screen")
        try #require(mkfifo(keyboard, 0o600) == 0)
        let typing = open(keyboard, O_RDWR | O_CLOEXEC)
        defer { close(typing) }
        _ = FileManager.default.createFile(atPath: screen.path, contents: nil)

        // The shipped descriptor, installed in a providers folder, Exec pointed at this checkout.
        let providers = folder.appendingPathComponent("providers")
        try FileManager.default.createDirectory(at: providers, withIntermediateDirectories: true)
        let shipped = try String(contentsOf: plugin.appendingPathComponent("terminal-prompt-sh.provider"), encoding: .utf8)
        try shipped.replacingOccurrences(
            of: "Exec=/usr/local/libexec/webview-host-terminal-prompt",
            with: "Exec=\(plugin.appendingPathComponent("webview-host-terminal-prompt").path) --input \(keyboard) --output \(screen.path)"
        ).write(to: providers.appendingPathComponent("terminal-prompt-sh.provider"), atomically: true, encoding: .utf8)

        let app = try PublicClientApplication(configuration: .init(
            clientID: server.clientID, authority: server.issuer, redirectURI: URL(string: "http://127.0.0.1:23682/callback")!,
            defaultScopes: ["openid", "profile", "email", "offline_access"], networkTimeout: 15,
            tokenCacheStorage: InMemoryTokenCacheStorage()))
        let (username, password) = (server.username, server.password)
        let person = Task.detached { () -> String in
            // Wait for the link, sign in with the scripted browser, paste where it ended.
            for _ in 0..<500 {
                let text = (try? String(contentsOf: screen, encoding: .utf8)) ?? ""
                if let link = text.split(whereSeparator: \.isWhitespace).first(where: { $0.hasPrefix("http") && $0.contains("/auth") }) {
                    let output = try await ScriptRunner.run(
                        "python3", [GlewlwydServer.browserScript.path, "--print-only", "-u", username, "-p", password, String(link)],
                        timeout: 60)
                    let line = output.standardOutput.split(separator: "\n").last { $0.hasPrefix("REDIRECT_URL=") } ?? ""
                    let address = Array((line.dropFirst("REDIRECT_URL=".count) + "\n").utf8)
                    _ = address.withUnsafeBytes { write(typing, $0.baseAddress, $0.count) }
                    return String(link)
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            return ""
        }
        let result = try await WebviewProviderRegistry.withIsolatedRegistry { () async throws -> AuthenticationResult in
            let report = WebviewProviderRegistry.registerInstalledProviders(extraDirectories: [providers])
            #expect(WebviewProviderRegistry.providers.contains { $0.id == "terminal-prompt-sh" }, "\(report)")
            return try await app.acquireToken(with: InteractiveTokenParameters(
                scopes: [], webviewParameters: WebviewParameters(webviewType: .provider("terminal-prompt-sh"))))
        }
        let link = try await person.value
        #expect(link.hasPrefix(server.issuer.absoluteString), "the plugin printed the authorization link")
        #expect(!result.accessToken.isEmpty)
        #expect(result.account.username == server.userEmail)
        #expect(result.idTokenClaims.issuer == server.issuer.absoluteString)
    }
}
