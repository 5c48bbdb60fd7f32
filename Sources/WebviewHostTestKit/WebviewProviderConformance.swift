public import Foundation
public import WebviewHost

/// The session contract as a suite any provider can run against itself (as swift-log's
/// LogHandler tests do): one terminal outcome, the one-session slot, cancel (from another thread,
/// from inside an observer, by cancelling the awaiting task), timeout, notifications on the main
/// thread and in order, nothing after the end, and — when the fixture can see them — no child
/// process left behind by `dismiss()`. A provider that can hand a sign-in over to the person's
/// browser opts in to the hand-over checks with ``Fixture/handOverAuthorizationURL``.
///
/// ```swift
/// let failures = await WebviewProviderConformance.run(provider: MyProvider(), fixture: fixture)
/// #expect(failures.isEmpty, "\(failures)")
/// ```
/// Each check runs in an isolated registry holding only `provider`.
public enum WebviewProviderConformance {
    /// How to drive the provider to each ending.
    public struct Fixture: Sendable {
        public var redirectURI: URL
        public var parameters: WebviewParameters
        public var environment: WebviewEnvironment
        /// An authorization URL the provider follows to the redirect URI (the prepared one is
        /// given), echoing `state`.
        public var succeedingAuthorizationURL: @Sendable (_ redirectURI: URL, _ state: String) -> URL
        /// An authorization URL that shows a page and never redirects.
        public var pendingAuthorizationURL: @Sendable (_ redirectURI: URL) -> URL
        /// How long a provider may take to reach the redirect.
        public var patience: Duration
        /// For a provider that starts processes: after each check (its sessions dismissed), the
        /// processes they left running, described for the failure message; empty when none. Give
        /// the provider's children time to be reaped before answering. `nil` skips this check.
        public var leftoverProcesses: (@Sendable () async -> [String])?
        /// The timeout the "timeout" check gives its session (counted from `prepare`). Raise it
        /// for a provider whose `prepare` takes a while, such as one that starts a process, so that
        /// a loaded machine does not time the session out before it is prepared.
        public var shortTimeout: Duration
        /// For a provider that hands a sign-in over to the person's browser
        /// (``WebAuthSessionReporter/handOverToSystemBrowser(_:)``): an authorization URL whose
        /// page makes the provider ask for it (a page that calls WebAuthn, say) when
        /// ``WebAuthSessionReporter/canHandOverToSystemBrowser`` is true. `nil` (the default)
        /// skips the ``handOverChecks``. Those checks register a browser fake next to the
        /// provider, set the policy to `automatic` and ``WebviewParameters/systemBrowserRedirectURI``
        /// to ``handOverBrowserRedirectURI``, and build the browser's request themselves.
        public var handOverAuthorizationURL: (@Sendable (_ redirectURI: URL) -> URL)?
        /// For a provider with UI of its own (a window): what of it the person can still see,
        /// described for the failure message; empty when nothing. Asked when the caller of each
        /// awaited ending resumes, where it must be empty. `nil` skips this check.
        public var visibleUI: (@MainActor @Sendable () -> [String])?

        public init(
            redirectURI: URL, parameters: WebviewParameters, environment: WebviewEnvironment = .current,
            succeedingAuthorizationURL: @escaping @Sendable (URL, String) -> URL,
            pendingAuthorizationURL: @escaping @Sendable (URL) -> URL,
            patience: Duration = .seconds(20),
            leftoverProcesses: (@Sendable () async -> [String])? = nil,
            shortTimeout: Duration = .milliseconds(700),
            handOverAuthorizationURL: (@Sendable (URL) -> URL)? = nil,
            visibleUI: (@MainActor @Sendable () -> [String])? = nil
        ) {
            self.redirectURI = redirectURI
            self.parameters = parameters
            self.environment = environment
            self.succeedingAuthorizationURL = succeedingAuthorizationURL
            self.pendingAuthorizationURL = pendingAuthorizationURL
            self.patience = patience
            self.leftoverProcesses = leftoverProcesses
            self.shortTimeout = shortTimeout
            self.handOverAuthorizationURL = handOverAuthorizationURL
            self.visibleUI = visibleUI
        }
    }

    /// One broken promise of the contract.
    public struct Failure: Sendable, CustomStringConvertible {
        public let check: String
        public let detail: String
        public var description: String { "\(check): \(detail)" }
    }

    /// The checks, by name (each is one entry of ``run(provider:fixture:only:)``'s result when it fails).
    /// Every ending that a check awaits also checks that the provider session was dismissed
    /// before the caller resumed.
    public static let checks = [
        "success", "cancel", "cancelBeforeStart", "taskCancellation", "cancelFromObserver", "timeout",
        "secondSession", "quietAfterEnd",
    ]

    /// The checks run only for a fixture with ``Fixture/handOverAuthorizationURL``: the sign-in
    /// moves to the browser (the provider dismissed once, its later reports ignored, the browser
    /// given the new request, one outcome, events in order), and a cancel while the browser shows.
    public static let handOverChecks = ["handOver", "cancelAfterHandOver"]

    /// The redirect URI the hand-over checks give the browser (a loopback one, as the browser
    /// needs); the new request is built for it.
    public static let handOverBrowserRedirectURI = URL(string: "http://127.0.0.1/conformance-browser-callback")!

    /// Runs the checks (all, or those named in `only`) and returns what failed; empty means
    /// the provider keeps the contract.
    @MainActor
    public static func run(
        provider: any WebviewProvider, fixture: Fixture, only: Set<String>? = nil
    ) async -> [Failure] {
        var failures: [Failure] = []
        let all = checks + (fixture.handOverAuthorizationURL == nil ? [] : handOverChecks)
        for check in all where only?.contains(check) ?? true {
            let found = await WebviewProviderRegistry.withIsolatedRegistry { () async -> [Failure] in
                var parameters = fixture.parameters
                parameters.webviewType = .provider(provider.id)
                let probe = Probe(check: check, fixture: fixture, parameters: parameters)
                // Watched: its sessions' dismissals are counted (dismissed before the caller resumes).
                WebviewProviderRegistry.register(ObservedProvider(provider, observer: probe.observer))
                if handOverChecks.contains(check) {
                    WebviewProviderRegistry.register(probe.browser.provider)
                }
                await probe.run()
                return probe.failures
            }
            failures += found
            // dismiss() must leave no child behind, however the check ended.
            if let leftoverProcesses = fixture.leftoverProcesses {
                let left = await leftoverProcesses()
                if !left.isEmpty {
                    failures.append(Failure(check: check, detail: "processes left running after dismiss: \(left)"))
                }
            }
        }
        return failures
    }

    /// One check's run, in an isolated registry; the checks are in the extension files by kind
    /// (WebviewProviderConformance+Outcomes, +Cancellation, +HandOver).
    @MainActor
    final class Probe {
        let check: String
        let fixture: Fixture
        let parameters: WebviewParameters
        var failures: [Failure] = []
        /// For the hand-over checks: what the provider under test was asked and reported.
        let observer = ProviderObserver()
        /// For the hand-over checks: the browser the sign-in moves to.
        let browser = ConformanceBrowser()

        init(check: String, fixture: Fixture, parameters: WebviewParameters) {
            self.check = check
            self.fixture = fixture
            self.parameters = parameters
        }

        func fail(_ detail: String) { failures.append(Failure(check: check, detail: detail)) }

        func makeSession(timeout: Duration? = nil) -> WebAuthSession {
            var parameters = parameters
            if let timeout { parameters.timeout = timeout }
            return WebAuthSession(redirectURI: fixture.redirectURI, parameters: parameters, environment: fixture.environment)
        }

        /// Runs `start` with a deadline, so a provider that never ends fails the check instead of hanging it.
        func outcome(
            of session: WebAuthSession, url: URL, state: String?, limit: Duration
        ) async -> Result<WebAuthResponse, WebAuthError>? {
            let watchdog = Task { @MainActor in
                try await Task.sleep(for: limit)
                session.cancel()
                self.fail("no outcome within \(limit); the check cancelled the session")
            }
            defer { watchdog.cancel() }
            let dismissedBefore = observer.dismissCount
            let result: Result<WebAuthResponse, WebAuthError>
            do {
                result = .success(try await session.start(authorizationURL: url, expectedState: state))
            } catch {
                result = .failure(error)
            }
            // Read on the caller's first step after the resume: the provider's UI is out of sight by now.
            if observer.dismissCount == dismissedBefore {
                fail("the caller resumed (\(result)) before the provider session was dismissed; its UI may still show")
            }
            if let shown = fixture.visibleUI?(), !shown.isEmpty {
                fail("the caller resumed (\(result)) while the provider still showed \(shown)")
            }
            return result
        }

        func expectEnding(_ recorder: WebAuthEventRecorder, terminal: Notification.Name) async {
            // Notifications from other threads arrive on later main-loop turns; let them land.
            try? await Task.sleep(for: .milliseconds(200))
            let records = recorder.records
            if recorder.terminalCount != 1 {
                fail("expected exactly one terminal notification, got \(recorder.terminalCount): \(recorder.shortNames)")
            }
            if records.last?.name != terminal {
                fail("the last notification is \(records.last?.shortName ?? "none"), expected \(terminal.rawValue)")
            }
            if records.contains(where: { !$0.onMainThread }) {
                fail("a notification was posted off the main thread: \(records.filter { !$0.onMainThread })")
            }
        }

        func expectSlotFree() async {
            let next = WebAuthSession(
                redirectURI: fixture.redirectURI, parameters: parameters, environment: fixture.environment)
            do {
                _ = try await next.prepare()
            } catch where error.code == .sessionAlreadyInProgress {
                fail("the one-session slot was still taken after the session ended")
            } catch {
                fail("a new session could not prepare after the end: \(error)")
            }
            next.cancel()
            try? await Task.sleep(for: .milliseconds(50))
        }

        func run() async {
            switch check {
            case "success": await success()
            case "cancel": await cancel()
            case "cancelBeforeStart": await cancelBeforeStart()
            case "taskCancellation": await taskCancellation()
            case "cancelFromObserver": await cancelFromObserver()
            case "timeout": await timeout()
            case "secondSession": await secondSession()
            case "quietAfterEnd": await quietAfterEnd()
            case "handOver": await handOver(cancelInBrowser: false)
            case "cancelAfterHandOver": await handOver(cancelInBrowser: true)
            default: fail("unknown check")
            }
        }

        /// Polls `condition` on the main actor until it holds or `fixture.patience` passes.
        func waitFor(_ condition: @MainActor () -> Bool) async -> Bool {
            let clock = ContinuousClock()
            let deadline = clock.now + fixture.patience
            while !condition() {
                if clock.now >= deadline { return false }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return true
        }
    }
}

/// Whether `callback` is at `redirect` by the contract's rule.
func redirectURIMatches(_ redirect: URL, _ callback: URL) -> Bool {
    (try? RedirectURI(redirect))?.matches(callback) ?? false
}
