// What the articles' examples use without declaring it: the app's own labels, pages and
// sessions, standing in for an app's code (the examples are compiled, not run).
import Foundation
import Testing
import WebviewHost
import WebviewHostTestKit

/// The session an app follows, its label and spinner (ObservingSessions.md).
@MainActor let session = WebAuthSession(redirectURI: URL(string: "http://127.0.0.1/callback")!)
@MainActor final class Label { var text = "" }
@MainActor final class Spinner {
    func start() {}
    func stop() {}
}
@MainActor let status = Label()
@MainActor let spinner = Spinner()
@MainActor func showError(_ message: String) {}

/// The app's authorization URL builder and its state (WebviewHost.md).
let state = "a-random-state"
func makeURL(_ redirectURI: URL) -> URL { URL(string: "https://login.example.com/authorize?redirect_uri=\(redirectURI)")! }

/// A plugin's test pages (ImplementingAProvider.md).
func loginPage(redirectingTo redirectURI: URL, state: String) -> URL { URL(string: "http://127.0.0.1:8080/login?state=\(state)")! }
let slowPage = URL(string: "http://127.0.0.1:8080/slow")!
let passkeyPage = URL(string: "http://127.0.0.1:8080/passkey")!

/// The session a kiosk browser plugin makes (ImplementingAProvider.md shows its provider).
@MainActor final class KioskSession: WebviewProviderSession {
    init(request: WebAuthRequest, reporter: WebAuthSessionReporter) {}
    func prepare() async throws -> URL { URL(string: "http://127.0.0.1/callback")! }
    func present(authorizationURL: URL) throws {}
    func dismiss() {}
}

/// The plugin and the fixture of WebviewHostTestKit.md.
typealias MyProvider = KioskBrowserProvider
let fixture = WebviewProviderConformance.Fixture(
    redirectURI: URL(string: "http://127.0.0.1:8080/callback")!, parameters: WebviewParameters(),
    succeedingAuthorizationURL: { redirect, state in loginPage(redirectingTo: redirect, state: state) },
    pendingAuthorizationURL: { _ in slowPage })
