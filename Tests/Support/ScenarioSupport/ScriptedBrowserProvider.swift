public import Foundation
import Synchronization
public import WebviewHost

/// A test provider plugin: a real ``WebviewProvider``, registered through the registry like any
/// plugin, whose "browser" is a script that signs in over plain HTTP without a person
/// (`Tests/Fixtures/Glewlwyd/browser_signin.py` against the local Glewlwyd, or a script that
/// takes the same arguments, such as `Tests/Fixtures/TokenCache/fake_entra.py`). The script
/// prints `REDIRECT_URL=<where the server sent it>`; the session reports that URL as a browser
/// reaching the loopback listener would. SignInTests use it in their own process, and
/// TokenCacheScenarios in the second app process.
///
/// Like a loopback provider, its prepare phase returns the requested redirect URI with the port
/// it "bound" (`loopbackPort`), so the authorization request must use the prepared URI.
public struct ScriptedBrowserProvider: WebviewProvider {
    /// Username and password typed into one run of the browser.
    public struct Credentials: Sendable {
        public var username: String
        public var password: String

        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }
    }

    /// What the browser does with the authorization URL.
    public enum Behavior: Sendable {
        /// Signs in with each set of credentials in turn, as a person retrying after a wrong
        /// password, until one is accepted; with `allowConsent` false it stops at a consent
        /// screen instead of granting it.
        case signIn([Credentials], allowConsent: Bool = true)
        /// Never reaches the redirect (a person who walked away).
        case hang
        /// Reports this (already used) code with the request's state, without running the script.
        case replay(code: String)
    }

    /// What the sessions saw, for the tests' assertions: `authorize <URL>`, `attempt <n> as
    /// <user>: exit <status> <standard error>`, `redirect <URL>`, `dismissed`, and whatever a
    /// test appends itself.
    public final class Log: Sendable {
        private let entries = Mutex<[String]>([])
        public init() {}
        public func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        public var all: [String] { entries.withLock { $0 } }
        public var redirects: [URL] {
            all.compactMap { $0.hasPrefix("redirect ") ? URL(string: String($0.dropFirst(9))) : nil }
        }
        public var authorizationURLs: [URL] {
            all.compactMap { $0.hasPrefix("authorize ") ? URL(string: String($0.dropFirst(10))) : nil }
        }
    }

    public let id: WebviewProviderID = "scripted-browser"
    public let displayName = "Scripted HTTP browser (tests)"
    public let kind = WebviewProviderKind.other
    public let requiresDisplay = false
    public let defaultTimeout: Duration?

    /// The browser script, run with `python3`.
    public let script: URL
    public let behavior: Behavior
    public let loopbackPort: Int
    /// Seconds the script waits for each HTTP answer (its `--timeout`). A run of the script is
    /// stopped after 60 seconds whatever this says.
    public let requestTimeout: Int
    public let log = Log()

    /// A provider whose sessions run `script` as `behavior` says; a session times out after
    /// `timeout` unless the request sets its own.
    public init(
        script: URL, behavior: Behavior, loopbackPort: Int, requestTimeout: Int = 15, timeout: Duration = .seconds(120)
    ) {
        self.script = script
        self.behavior = behavior
        self.loopbackPort = loopbackPort
        self.requestTimeout = requestTimeout
        self.defaultTimeout = timeout
    }

    public func availability(in environment: WebviewEnvironment) -> WebviewProviderAvailability {
        FileManager.default.isReadableFile(atPath: script.path)
            ? .available : .unavailable(reason: "\(script.path) is missing")
    }

    @MainActor
    public func makeSession(for request: WebAuthRequest, reporter: WebAuthSessionReporter) throws -> any WebviewProviderSession {
        ScriptedBrowserSession(provider: self, request: request, reporter: reporter)
    }
}
