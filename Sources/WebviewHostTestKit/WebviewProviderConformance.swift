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

        public init(
            redirectURI: URL, parameters: WebviewParameters, environment: WebviewEnvironment = .current,
            succeedingAuthorizationURL: @escaping @Sendable (URL, String) -> URL,
            pendingAuthorizationURL: @escaping @Sendable (URL) -> URL,
            patience: Duration = .seconds(20),
            leftoverProcesses: (@Sendable () async -> [String])? = nil,
            shortTimeout: Duration = .milliseconds(700),
            handOverAuthorizationURL: (@Sendable (URL) -> URL)? = nil
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
                if handOverChecks.contains(check) {
                    WebviewProviderRegistry.register(ObservedProvider(provider, observer: probe.observer))
                    WebviewProviderRegistry.register(probe.browser.provider)
                } else {
                    WebviewProviderRegistry.register(provider)
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

    @MainActor
    private final class Probe {
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
            case "handOver": await handOver(cancelInBrowser: false)
            case "cancelAfterHandOver": await handOver(cancelInBrowser: true)
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
            // Whichever step comes first: every step that does not end the session.
            let steps = WebAuthEvent.Kind.allCases.filter { !$0.isTerminal }
            let tokens = steps.map { step in
                NotificationCenter.default.addObserver(forName: step.notificationName, object: session, queue: nil) { _ in
                    session.cancel()
                }
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
            if let index = records.firstIndex(where: \.kind.isTerminal),
                index != records.count - 1
            {
                fail("notifications after the outcome: \(records[(index + 1)...].map(\.shortName))")
            }
            if recorder.terminalCount != 1 { fail("expected one terminal notification, got \(recorder.shortNames)") }
        }

        /// The provider asks for the browser; the browser fake then waits until the check has
        /// made the provider's old reporter speak (nothing may change), then redirects, or the
        /// check cancels while the browser shows.
        func handOver(cancelInBrowser: Bool) async {
            guard let handOverURL = fixture.handOverAuthorizationURL else { return }
            var parameters = parameters
            parameters.systemBrowserHandOver = .automatic
            parameters.systemBrowserRedirectURI = WebviewProviderConformance.handOverBrowserRedirectURI
            let session = WebAuthSession(redirectURI: fixture.redirectURI, parameters: parameters, environment: fixture.environment)
            let recorder = WebAuthEventRecorder(session: session)
            let built = BuiltRequests()
            let builder: AuthorizationRequestBuilder = { redirect in
                let count = built.append(redirect)
                if count == 1 { return AuthorizationRequestURL(handOverURL(redirect), state: nil) }
                var components = URLComponents(string: "https://browser.conformance.invalid/authorize")!
                components.queryItems = [
                    .init(name: "redirect_uri", value: redirect.absoluteString), .init(name: "state", value: "conformance-browser"),
                ]
                return AuthorizationRequestURL(components.url!, state: "conformance-browser")
            }
            let running = Task { @MainActor () -> Result<WebAuthResponse, WebAuthError> in
                do throws(WebAuthError) {
                    return .success(try await session.authenticate(request: builder))
                } catch {
                    return .failure(error)
                }
            }
            let watchdog = Task { @MainActor in
                try await Task.sleep(for: self.fixture.patience * 2)
                session.cancel()
                self.fail("no outcome within \(self.fixture.patience * 2); the check cancelled the session")
            }
            defer { watchdog.cancel() }

            // The browser shows the new request.
            guard await waitFor({ self.browser.presented != nil || recorder.terminalCount > 0 }) else {
                fail("the provider did not hand the sign-in over within \(fixture.patience): \(recorder.shortNames)")
                session.cancel()
                _ = await running.value
                return
            }
            if let presented = browser.presented {
                let asked = built.all
                if asked.count != 2 {
                    fail("the builder was asked for \(asked.count) requests, expected one for the provider and one for the browser")
                } else if asked[1].absoluteString != WebviewProviderConformance.handOverBrowserRedirectURI.absoluteString {
                    fail("the browser's request was built for \(asked[1]), expected the browser's redirect URI")
                }
                if URLComponents(url: presented, resolvingAgainstBaseURL: false)?.host != "browser.conformance.invalid" {
                    fail("the browser was presented \(presented), not the new request")
                }
                if recorder.terminalCount == 0 {
                    // The provider is out of the session: its dismiss comes, and what it reports now changes nothing.
                    _ = await waitFor { self.observer.dismissCount > 0 }
                    if let old = observer.reporter {
                        let stale = fixture.redirectURI.absoluteString + "?code=stale&state=stale"
                        old.didStartLoad(handOverURL(fixture.redirectURI))
                        if let url = URL(string: stale) { old.handleRedirect(url) }
                        old.fail(WebAuthError(.network, "a late failure from the replaced provider"))
                        if old.handOverToSystemBrowser(SystemBrowserHandOver(reason: .webAuthn, detail: "again")) {
                            fail("the replaced provider's reporter handed over a second time")
                        }
                        if old.canHandOverToSystemBrowser { fail("the replaced provider's reporter still says it can hand over") }
                    }
                    try? await Task.sleep(for: .milliseconds(100))
                    if recorder.terminalCount > 0 { fail("a report from the replaced provider ended the session: \(recorder.shortNames)") }
                }
            }
            if cancelInBrowser { session.cancel() } else { browser.finish() }
            let result = await running.value

            switch (result, cancelInBrowser) {
            case (.success(let response), false):
                if response.state != "conformance-browser" || response.code != "from-browser" {
                    fail("the response is not the browser's: state \(response.state ?? "nil"), code \(response.code ?? "nil")")
                }
            case (.failure(let error), true) where error.code == .canceled: break
            case (.failure(let error), _): fail("expected \(cancelInBrowser ? "canceled" : "the browser's response"), got \(error)")
            case (.success, true): fail("expected canceled, got success")
            }
            await expectEnding(recorder, terminal: cancelInBrowser ? .webAuthDidFail : .webAuthDidComplete)
            let names = recorder.shortNames
            if names.first != "didStartLoad" { fail("the first notification is \(names.first ?? "none"), expected didStartLoad") }
            let switches = names.indices.filter { names[$0] == "willSwitchToSystemBrowser" }
            if switches.count != 1 {
                fail("expected one willSwitchToSystemBrowser, got \(names)")
            } else if let browserLoad = recorder.records.firstIndex(where: { $0.url == browser.presented }),
                browserLoad < switches[0]
            {
                fail("the browser's events came before willSwitchToSystemBrowser: \(names)")
            } else if !cancelInBrowser, !recorder.records.contains(where: { $0.name == .webAuthDidStartLoad && $0.url == browser.presented }) {
                fail("the browser's didStartLoad is missing: \(recorder.records)")
            }
            if observer.dismissCount != 1 { fail("the provider was dismissed \(observer.dismissCount) times, expected once") }
            if browser.log.dismissCount != 1 { fail("the browser was dismissed \(browser.log.dismissCount) times, expected once") }
            if browser.log.all.filter({ $0 == .made }).count != 1 { fail("the browser was started \(browser.log.all)") }
            await expectSlotFree()
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
private func redirectURIMatches(_ redirect: URL, _ callback: URL) -> Bool {
    (try? RedirectURI(redirect))?.matches(callback) ?? false
}
