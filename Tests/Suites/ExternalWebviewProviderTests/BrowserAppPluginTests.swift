import ExternalWebviewProvider
import Foundation
import ScenarioSupport
import Testing
import TestTraits
import WebviewHost
import WebviewHostTestKit

/// The Python example plugin (Plugins/browser-app-py) through the real protocol, with its
/// browser replaced by Tests/Fixtures/ExternalPlugins/fake-browser.py, which follows the authorization
/// URL's redirect_uri over 127.0.0.1 as a browser would after the server's redirect.
@Suite("Plugins/browser-app-py: a Python plugin with its own loopback listener", .serialized, .desktop)
@MainActor
struct BrowserAppPluginTests {
    let pluginDirectory = Checkout.root.appendingPathComponent("Plugins/browser-app-py")
    let withDisplay = WebviewEnvironment(variables: ["DISPLAY": ":99"])

    func provider() throws -> ExternalProvider {
        let shipped = try String(
            contentsOf: pluginDirectory.appendingPathComponent("browser-app-py.provider"), encoding: .utf8)
        let script = pluginDirectory.appendingPathComponent("webview-host-browser-app").path
        let browser = Checkout.fixture("ExternalPlugins").appendingPathComponent("fake-browser.py").path
        let text = shipped.replacingOccurrences(
            of: "Exec=/usr/local/libexec/webview-host-browser-app",
            with: "Exec=\(python) \(script) --browser \"\(python) \(browser) --stray\"")
        return ExternalProvider(descriptor: try ProviderDescriptor(parsing: text), limits: testLimits)
    }

    @Test("It binds a loopback port, opens the page, and the browser's request to the redirect ends the sign-in")
    func loopbackSignIn() async throws {
        let provider = try provider()
        #expect(provider.kind == .systemBrowser)
        try await WebviewProviderRegistry.withIsolatedRegistry {
            WebviewProviderRegistry.register(provider)
            let session = WebAuthSession(
                redirectURI: URL(string: "http://127.0.0.1/callback")!,
                parameters: .init(webviewType: .authenticationSession), environment: withDisplay)
            let recorder = WebAuthEventRecorder(session: session)
            let prepared = try await session.prepare()
            #expect(session.provider?.id == "browser-app-py", ".authenticationSession picks a system-browser kind")
            let port = try #require(prepared.port, "the plugin bound a port and said which")
            #expect(prepared.absoluteString == "http://127.0.0.1:\(port)/callback")
            var components = URLComponents(string: "https://idp.example.test/authorize")!
            components.queryItems = [.init(name: "redirect_uri", value: prepared.absoluteString), .init(name: "state", value: "b1")]
            let response = try await session.start(authorizationURL: components.url!, expectedState: "b1")
            #expect(response.code == "browser")
            #expect(response.callbackURL.port == port)
            try await Task.sleep(for: .milliseconds(100))
            #expect(recorder.shortNames == ["didStartLoad", "didComplete"])
        }
    }

    @Test("A redirect URI it cannot receive (a custom scheme) is refused with the plugin's reason")
    func customSchemeRefused() async throws {
        let provider = try provider()
        await WebviewProviderRegistry.withIsolatedRegistry {
            WebviewProviderRegistry.register(provider)
            let session = WebAuthSession(
                redirectURI: URL(string: "com.example.app:/oauth2redirect")!,
                parameters: .init(webviewType: .provider("browser-app-py")), environment: withDisplay)
            do throws(WebAuthError) {
                _ = try await session.prepare()
                Issue.record("prepared a custom-scheme redirect it cannot receive")
            } catch {
                #expect(error.code == .invalidParameters)
                #expect(error.message.contains("only loopback redirect URIs"))
            }
        }
    }
}
