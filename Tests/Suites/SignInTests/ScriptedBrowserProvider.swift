import Foundation
import Synchronization
import WebviewHost

/// A test provider plugin: a real ``WebviewProvider``, registered through the registry, whose
/// session signs in with `Tests/Fixtures/Glewlwyd/browser_signin.py` (a scripted HTTP browser) and reports
/// the final redirect URL, as a browser would reach the loopback listener.
///
/// Like a loopback provider, its prepare phase returns the requested redirect URI with the port
/// it "bound" (`loopbackPort`), so the authorization request must use the prepared URI.
struct ScriptedBrowserProvider: WebviewProvider {
    /// Username and password typed into one run of the browser.
    struct Credentials: Sendable {
        var username: String
        var password: String
    }

    /// What the browser does with the authorization URL.
    enum Behavior: Sendable {
        /// Signs in with each set of credentials in turn, as a person retrying after a wrong
        /// password, until one is accepted.
        case signIn([Credentials], allowConsent: Bool = true)
        /// Never reaches the redirect (a person who walked away).
        case hang
        /// Reports this (already used) code with the request's state, without running the script.
        case replay(code: String)
    }

    /// What the sessions saw, for the tests' assertions.
    final class Log: Sendable {
        private let entries = Mutex<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
        var redirects: [URL] { all.compactMap { $0.hasPrefix("redirect ") ? URL(string: String($0.dropFirst(9))) : nil } }
        var authorizationURLs: [URL] { all.compactMap { $0.hasPrefix("authorize ") ? URL(string: String($0.dropFirst(10))) : nil } }
    }

    let id: WebviewProviderID = "scripted-browser"
    let displayName = "Scripted HTTP browser (tests)"
    let kind = WebviewProviderKind.other
    let requiresDisplay = false
    let defaultTimeout: Duration? = .seconds(120)

    let script: URL
    let behavior: Behavior
    let loopbackPort: Int
    let log = Log()

    func availability(in environment: WebviewEnvironment) -> WebviewProviderAvailability {
        FileManager.default.isReadableFile(atPath: script.path)
            ? .available : .unavailable(reason: "\(script.path) is missing")
    }

    @MainActor
    func makeSession(for request: WebAuthRequest, reporter: WebAuthSessionReporter) throws -> any WebviewProviderSession {
        ScriptedBrowserSession(provider: self, request: request, reporter: reporter)
    }
}
