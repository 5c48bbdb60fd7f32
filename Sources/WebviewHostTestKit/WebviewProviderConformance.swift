public import Foundation
public import WebviewHost

/// The session contract as a suite any provider can run against itself (as swift-log's
/// LogHandler tests do): one terminal outcome, the one-session slot, cancel (from another thread,
/// from inside an observer, by cancelling the awaiting task), timeout, notifications on the main
/// thread and in order, nothing after the end, and — when the fixture can see them — no child
/// process left behind by `dismiss()`.
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

        public init(
            redirectURI: URL, parameters: WebviewParameters, environment: WebviewEnvironment = .current,
            succeedingAuthorizationURL: @escaping @Sendable (URL, String) -> URL,
            pendingAuthorizationURL: @escaping @Sendable (URL) -> URL,
            patience: Duration = .seconds(20),
            leftoverProcesses: (@Sendable () async -> [String])? = nil,
            shortTimeout: Duration = .milliseconds(700)
        ) {
            self.redirectURI = redirectURI
            self.parameters = parameters
            self.environment = environment
            self.succeedingAuthorizationURL = succeedingAuthorizationURL
            self.pendingAuthorizationURL = pendingAuthorizationURL
            self.patience = patience
            self.leftoverProcesses = leftoverProcesses
            self.shortTimeout = shortTimeout
        }
    }

    /// One broken promise of the contract.
    public struct Failure: Sendable, CustomStringConvertible {
        public let check: String
        public let detail: String
        public var description: String { "\(check): \(detail)" }
    }

    /// The checks, by name (each is one entry of ``run(provider:fixture:only:)``'s result when it fails).
    public static let checks = [
        "success", "cancel", "cancelBeforeStart", "taskCancellation", "cancelFromObserver", "timeout",
        "secondSession", "quietAfterEnd",
    ]

    /// Runs the checks (all, or those named in `only`) and returns what failed; empty means
    /// the provider keeps the contract.
    @MainActor
    public static func run(
        provider: any WebviewProvider, fixture: Fixture, only: Set<String>? = nil
    ) async -> [Failure] {
        var failures: [Failure] = []
        for check in checks where only?.contains(check) ?? true {
            let found = await WebviewProviderRegistry.withIsolatedRegistry { () async -> [Failure] in
                WebviewProviderRegistry.register(provider)
                var parameters = fixture.parameters
                parameters.webviewType = .provider(provider.id)
                let probe = Probe(check: check, fixture: fixture, parameters: parameters)
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

    @MainActor
    private final class Probe {
        let check: String
        let fixture: Fixture
        let parameters: WebviewParameters
        var failures: [Failure] = []

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
            do {
                return .success(try await session.start(authorizationURL: url, expectedState: state))
            } catch {
                return .failure(error)
            }
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
            default: fail("unknown check")
            }
        }

        func success() async {
            let session = makeSession()
            let recorder = WebAuthEventRecorder(session: session)
            let state = "conformance-\(UInt32.random(in: 0...UInt32.max))"
            do {
                let redirect = try await session.prepare()
                let result = await outcome(
                    of: session, url: fixture.succeedingAuthorizationURL(redirect, state), state: state,
                    limit: fixture.patience)
                switch result {
                case .success(let response):
                    if response.state != state { fail("the response's state is \(response.state ?? "nil"), expected \(state)") }
                    if !redirectURIMatches(redirect, response.callbackURL) {
                        fail("the callback \(response.callbackURL) is not at the redirect URI \(redirect)")
                    }
                case .failure(let error): fail("expected success, got \(error)")
                case nil: break
                }
            } catch {
                fail("prepare failed: \(error)")
            }
            await expectEnding(recorder, terminal: .webAuthDidComplete)
            if let first = recorder.records.first, first.name != .webAuthDidStartLoad, first.name != .webAuthWillSwitchToBrokerApp {
                fail("the first notification is \(first.shortName), expected didStartLoad")
            }
            await expectSlotFree()
        }

        func cancel() async {
            let session = makeSession()
            let recorder = WebAuthEventRecorder(session: session)
            do {
                let redirect = try await session.prepare()
                Task.detached {
                    try? await Task.sleep(for: .milliseconds(300))
                    session.cancel()  // from another thread
                }
                let result = await outcome(
                    of: session, url: fixture.pendingAuthorizationURL(redirect), state: nil, limit: fixture.patience)
                if case .failure(let error) = result, error.code != .canceled {
                    fail("expected canceled, got \(error.code)")
                } else if case .success = result {
                    fail("expected canceled, got success")
                }
            } catch {
                fail("prepare failed: \(error)")
            }
            await expectEnding(recorder, terminal: .webAuthDidFail)
            await expectSlotFree()
        }

        func cancelBeforeStart() async {
            let session = makeSession()
            do {
                let redirect = try await session.prepare()
                session.cancel()
                _ = try await session.start(authorizationURL: fixture.pendingAuthorizationURL(redirect))
                fail("start after cancel returned a response")
            } catch {
                if error.code != .canceled { fail("expected canceled, got \(error.code)") }
            }
            await expectSlotFree()
        }

        /// The app cancels the Swift task awaiting `start` while the page shows.
        func taskCancellation() async {
            let session = makeSession()
            let recorder = WebAuthEventRecorder(session: session)
            do {
                let redirect = try await session.prepare()
                let url = fixture.pendingAuthorizationURL(redirect)
                let waiting = Task { @MainActor in try await session.start(authorizationURL: url) }
                let watchdog = Task { @MainActor in
                    try await Task.sleep(for: self.fixture.patience)
                    session.cancel()
                    self.fail("cancelling the task did not end the session within \(self.fixture.patience)")
                }
                defer { watchdog.cancel() }
                try? await Task.sleep(for: .milliseconds(300))
                waiting.cancel()
                switch await waiting.result {
                case .success: fail("expected canceled, got success")
                case .failure(let error as WebAuthError) where error.code != .canceled: fail("expected canceled, got \(error.code)")
                default: break
                }
            } catch {
                fail("prepare failed: \(error)")
            }
            await expectEnding(recorder, terminal: .webAuthDidFail)
            await expectSlotFree()
        }

        /// An observer of the first event cancels from inside it; a later observer must still see
        /// that event before `didFail`, and `didFail` last.
        func cancelFromObserver() async {
            let session = makeSession()
            let names: [Notification.Name] = [.webAuthDidStartLoad, .webAuthDidFinishLoad, .webAuthWillSwitchToBrokerApp]
            let tokens = names.map { name in
                NotificationCenter.default.addObserver(forName: name, object: session, queue: nil) { _ in session.cancel() }
            }
            defer { for token in tokens { NotificationCenter.default.removeObserver(token) } }
            let recorder = WebAuthEventRecorder(session: session)
            do {
                let redirect = try await session.prepare()
                let result = await outcome(
                    of: session, url: fixture.pendingAuthorizationURL(redirect), state: nil, limit: fixture.patience)
                if case .failure(let error) = result, error.code != .canceled {
                    fail("expected canceled, got \(error.code)")
                } else if case .success = result {
                    fail("expected canceled, got success")
                }
            } catch {
                fail("prepare failed: \(error)")
            }
            await expectEnding(recorder, terminal: .webAuthDidFail)
            let shortNames = recorder.shortNames
            if shortNames.count != 2 || shortNames.first == "didFail" {
                fail("a later observer saw \(shortNames); expected the first event, then didFail")
            }
            await expectSlotFree()
        }

        func timeout() async {
            let session = makeSession(timeout: fixture.shortTimeout)
            let recorder = WebAuthEventRecorder(session: session)
            do {
                let redirect = try await session.prepare()
                let result = await outcome(
                    of: session, url: fixture.pendingAuthorizationURL(redirect), state: nil, limit: fixture.patience)
                if case .failure(let error) = result, error.code != .timedOut {
                    fail("expected timedOut, got \(error.code)")
                } else if case .success = result {
                    fail("expected timedOut, got success")
                }
            } catch {
                fail("prepare failed: \(error)")
            }
            await expectEnding(recorder, terminal: .webAuthDidFail)
            await expectSlotFree()
        }

        func secondSession() async {
            let first = makeSession()
            let firstRecorder = WebAuthEventRecorder(session: first)
            do {
                let redirect = try await first.prepare()
                let running = Task { @MainActor in
                    await self.outcome(of: first, url: self.fixture.pendingAuthorizationURL(redirect), state: nil, limit: self.fixture.patience)
                }
                try? await Task.sleep(for: .milliseconds(200))
                let second = makeSession()
                let clock = ContinuousClock()
                let started = clock.now
                do {
                    _ = try await second.prepare()
                    fail("a second session prepared while one was running")
                    second.cancel()
                } catch {
                    if error.code != .sessionAlreadyInProgress { fail("expected sessionAlreadyInProgress, got \(error.code)") }
                }
                if clock.now - started > .seconds(1) { fail("the second session took \(clock.now - started) to fail; it must fail at once") }
                try? await Task.sleep(for: .milliseconds(100))
                if firstRecorder.terminalCount != 0 { fail("refusing the second session ended the first: \(firstRecorder.shortNames)") }
                first.cancel()
                let result = await running.value
                if case .failure(let error) = result, error.code != .canceled {
                    fail("the first session ended with \(error.code) after the second was refused; expected canceled")
                }
            } catch {
                fail("prepare failed: \(error)")
            }
            await expectSlotFree()
        }

        func quietAfterEnd() async {
            let session = makeSession()
            let recorder = WebAuthEventRecorder(session: session)
            let state = "quiet"
            do {
                let redirect = try await session.prepare()
                _ = await outcome(
                    of: session, url: fixture.succeedingAuthorizationURL(redirect, state), state: state, limit: fixture.patience)
                session.cancel()  // a late cancel must change nothing
            } catch {
                fail("prepare failed: \(error)")
            }
            try? await Task.sleep(for: .milliseconds(500))
            let records = recorder.records
            if let index = records.firstIndex(where: { $0.name == .webAuthDidComplete || $0.name == .webAuthDidFail }),
                index != records.count - 1
            {
                fail("notifications after the outcome: \(records[(index + 1)...].map(\.shortName))")
            }
            if recorder.terminalCount != 1 { fail("expected one terminal notification, got \(recorder.shortNames)") }
        }
    }
}

/// Whether `callback` is at `redirect` by the contract's rule.
private func redirectURIMatches(_ redirect: URL, _ callback: URL) -> Bool {
    (try? RedirectURI(redirect))?.matches(callback) ?? false
}
