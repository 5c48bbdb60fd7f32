import Foundation
import Synchronization
import Testing
import WebviewHost
import WebviewHostTestKit

/// `WebAuthSession.observe(_:)` and `observeAll(_:)`: main-actor handlers on the notifications' path.
/// Serialized: `observeAll` is process-wide (each test keeps only its own sessions' events).
@Suite("Observing sessions on the main actor", .serialized)
struct ObservationTests {
    /// The ways a session ends, each with the events it delivers.
    enum Ending: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case success, serverError, stateMismatch, providerFailure, prepareFailure, cancel, timeout, broker

        var testDescription: String { rawValue }

        var expected: [String] {
            switch self {
            case .success: ["didStartLoad", "didFinishLoad", "didComplete"]
            case .serverError, .stateMismatch: ["didStartLoad", "didFinishLoad", "didFail"]
            case .providerFailure, .cancel, .timeout: ["didStartLoad", "didFail"]
            case .prepareFailure: ["didFail"]
            case .broker: ["didStartLoad", "willSwitchToBrokerApp", "didComplete"]
            }
        }

        /// Registers the providers for this ending and returns the session's parameters.
        @MainActor
        func register() -> WebviewParameters {
            var parameters = WebviewParameters(webviewType: .provider("fake"))
            switch self {
            case .success: registerFake(behavior: FakeWebviewProvider.redirect(query: "code=c1"))
            case .serverError: registerFake(behavior: FakeWebviewProvider.redirect(query: "error=access_denied"))
            case .stateMismatch: registerFake(behavior: FakeWebviewProvider.redirect(query: "code=c1&state=evil"))
            case .providerFailure: registerFake(behavior: FakeWebviewProvider.fail(WebAuthError(.network, "The network is down.")))
            case .prepareFailure:
                registerFake(prepareRedirect: { _ in throw WebAuthError(.redirectListenerFailed, "The port is taken.") })
            case .cancel: registerFake(behavior: FakeWebviewProvider.waitForever)
            case .timeout:
                registerFake(behavior: FakeWebviewProvider.waitForever)
                parameters.timeout = .milliseconds(200)
            case .broker:
                registerFake(kind: .embeddedView, behavior: { presentation in
                    presentation.reporter.didStartLoad(presentation.authorizationURL)
                    _ = presentation.reporter.switchToBroker(URL(string: "msauth://broker/authorize")!)
                })
                WebviewProviderRegistry.register(FakeWebviewProvider(id: "broker", brokerSchemes: ["msauth"], behavior: { presentation in
                    presentation.reporter.handleRedirect(FakeWebviewProvider.callback(for: presentation, query: "code=b1&state=s-123"))
                }))
            }
            return parameters
        }
    }

    @Test("Both observations see what the notifications post, event by event in the same order", arguments: Ending.allCases)
    @MainActor
    func sameOrderAsNotifications(ending: Ending) async throws {
        await WebviewProviderRegistry.withIsolatedRegistry {
            let parameters = ending.register()
            let session = WebAuthSession(redirectURI: testRedirect, parameters: parameters, environment: graphical)
            let seen = Sightings()
            let notifications = seen.observeNotifications(of: session, as: "notification")
            defer { notifications.forEach(NotificationCenter.default.removeObserver) }
            let own = session.observe { seen.add("session", $0) }
            let all = WebAuthSession.observeAll { observed, event in
                if observed === session { seen.add("all", event) }
                // Cancelled from another thread once the page shows (not after a fixed time).
                if observed === session, ending == .cancel, case .didStartLoad = event {
                    DispatchQueue.global().async { session.cancel() }
                }
            }
            let streamed = Task { await collect(session) }
            await run(session)

            #expect(await streamed.value == ending.expected)
            #expect(seen.entries == ending.expected.flatMap { ["notification:\($0)", "session:\($0)", "all:\($0)"] })
            #expect(!own.isValid, "a session's observation ends with its terminal event")
            #expect(all.isValid, "an all-sessions observation goes on")
            all.invalidate()
        }
    }

    @Test("Nothing after the terminal event: late reports (main actor, other thread, from inside the terminal handler), cancel(), an observation started afterwards")
    @MainActor
    func nothingAfterTheEnd() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let presented = Mutex<WebAuthSessionReporter?>(nil)
            registerFake(behavior: { presentation in
                presented.withLock { $0 = presentation.reporter }
                try FakeWebviewProvider.redirect(query: "code=c1")(presentation)
            })
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let seen = Sightings()
            let own = session.observe { event in
                seen.add("session", event)
                if event.isTerminal {
                    // Inside the terminal event: all of these are too late.
                    presented.withLock { $0 }?.didStartLoad(authorizationURL)
                    presented.withLock { $0 }?.fail(WebAuthError(.network, "late"))
                    session.cancel()
                }
            }
            let all = WebAuthSession.observeAll { observed, event in
                if observed === session { seen.add("all", event) }
            }
            defer { all.invalidate() }
            let handlerReleased = Mutex(false)
            let kept = observeHoldingWitness(session) { _ in handlerReleased.withLock { $0 = true } }
            await run(session)
            #expect(handlerReleased.withLock { $0 }, "the terminal event releases the session's handlers, though the observation is kept")
            #expect(!kept.isValid)
            let reporter = try #require(presented.withLock { $0 })
            reporter.didStartLoad(authorizationURL)
            reporter.didFinishLoad(authorizationURL)
            reporter.handleRedirect(URL(string: "http://127.0.0.1:8080/callback?code=late&state=s-123")!)
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    reporter.didStartLoad(authorizationURL)
                    reporter.fail(WebAuthError(.network, "late"))
                    session.cancel()
                    done.resume()
                }
            }
            let afterwards = session.observe { seen.add("afterwards", $0) }
            #expect(!afterwards.isValid)
            // Anything sent from the other thread would arrive on a later main-queue turn.
            try await Task.sleep(for: .milliseconds(100))
            let expected = ["didStartLoad", "didFinishLoad", "didComplete"]
            #expect(seen.entries == expected.flatMap { ["session:\($0)", "all:\($0)"] })
            #expect(!own.isValid)
        }
    }

    @Test("cancel() inside a handler: not delivered during the call; didFail follows once the current event reached every observer and the stream", arguments: ["session", "all"])
    @MainActor
    func cancelInsideHandler(canceller: String) async throws {
        await WebviewProviderRegistry.withIsolatedRegistry {
            registerFake(behavior: { presentation in
                presentation.reporter.didStartLoad(presentation.authorizationURL)
                presentation.reporter.didFinishLoad(presentation.authorizationURL)
            })
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let seen = Sightings()
            var seenWhenCancelReturned: [String]?
            var failure: WebAuthError?
            let notifications = seen.observeNotifications(of: session, as: "notification")
            defer { notifications.forEach(NotificationCenter.default.removeObserver) }
            let first = session.observe { event in
                seen.add("first", event)
                if canceller == "session", case .didFinishLoad = event {
                    session.cancel()
                    seenWhenCancelReturned = seen.entries
                }
            }
            let second = session.observe { event in
                seen.add("second", event)
                if case .didFail(let error) = event { failure = error }
            }
            let all = WebAuthSession.observeAll { observed, event in
                guard observed === session else { return }
                seen.add("all", event)
                if canceller == "all", case .didFinishLoad = event {
                    observed.cancel()
                    seenWhenCancelReturned = seen.entries
                }
            }
            defer { all.invalidate() }
            let streamed = Task { await collect(session) }
            await run(session)

            let order = ["notification", "first", "second", "all"]
            let expected = ["didStartLoad", "didFinishLoad", "didFail"].flatMap { event in order.map { "\($0):\(event)" } }
            #expect(seen.entries == expected)
            #expect(seenWhenCancelReturned?.contains { $0.hasSuffix("didFail") } == false, "didFail was delivered inside cancel()")
            #expect(seenWhenCancelReturned?.last == "\(canceller == "session" ? "first" : "all"):didFinishLoad")
            #expect(failure?.code == .canceled)
            #expect(await streamed.value == ["didStartLoad", "didFinishLoad", "didFail"])
            withExtendedLifetime((first, second)) {}
        }
    }

    @Test("invalidate() and release stop delivery: from the test, from another thread, from an earlier handler, from the handler itself")
    @MainActor
    func invalidateStopsDelivery() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let presented = Mutex<WebAuthSessionReporter?>(nil)
            registerFake(behavior: { presentation in
                presented.withLock { $0 = presentation.reporter }
                presentation.reporter.didStartLoad(presentation.authorizationURL)
            })
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let seen = Sightings()
            let invalidated = session.observe { seen.add("invalidated", $0) }
            var released: WebAuthObservation? = session.observe { seen.add("released", $0) }
            let otherThread = session.observe { seen.add("otherThread", $0) }
            var victim: WebAuthObservation?
            let killer = session.observe { event in
                seen.add("killer", event)
                if case .didFinishLoad = event { victim?.invalidate() }
            }
            victim = session.observe { seen.add("victim", $0) }
            var itself: WebAuthObservation?
            itself = session.observe { event in
                seen.add("itself", event)
                itself?.invalidate()
            }
            let control = session.observe { seen.add("control", $0) }
            let all = WebAuthSession.observeAll { observed, event in
                if observed === session { seen.add("all", event) }
            }
            _ = try await session.prepare()
            let outcome = Task { @MainActor in try await session.start(authorizationURL: authorizationURL) }
            await seen.until { $0.contains("control:didStartLoad") }

            invalidated.invalidate()
            invalidated.invalidate()  // no effect the second time
            released = nil
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    otherThread.invalidate()
                    done.resume()
                }
            }
            all.invalidate()
            let reporter = try #require(presented.withLock { $0 })
            reporter.didFinishLoad(authorizationURL)
            session.cancel()
            _ = await outcome.result
            await seen.until { $0.contains("control:didFail") }

            for name in ["invalidated", "released", "otherThread", "itself", "all"] {
                #expect(seen.names(of: name) == ["didStartLoad"], "\(name)")
            }
            #expect(seen.names(of: "victim") == ["didStartLoad"], "invalidated by an earlier handler during didFinishLoad")
            #expect(seen.names(of: "killer") == ["didStartLoad", "didFinishLoad", "didFail"])
            #expect(seen.names(of: "control") == ["didStartLoad", "didFinishLoad", "didFail"])
            #expect(!invalidated.isValid && !otherThread.isValid && !all.isValid && victim?.isValid == false)
            #expect(released == nil)
            withExtendedLifetime((killer, control)) {}
        }
    }

    @Test("An observation started inside a handler or a notification observer sees the next event, not the one being delivered; no deadlock")
    @MainActor
    func observeInsideHandler() async throws {
        await WebviewProviderRegistry.withIsolatedRegistry {
            registerFake()
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let seen = Sightings()
            var started: [WebAuthObservation] = []
            let notified = NotificationCenter.default.addObserver(forName: .webAuthDidStartLoad, object: session, queue: nil) { _ in
                MainActor.assumeIsolated {
                    started.append(session.observe { seen.add("fromNotification", $0) })
                }
            }
            defer { NotificationCenter.default.removeObserver(notified) }
            let starter = session.observe { event in
                seen.add("starter", event)
                if case .didStartLoad = event {
                    started.append(session.observe { seen.add("late", $0) })
                    started.append(WebAuthSession.observeAll { observed, event in
                        if observed === session { seen.add("lateAll", event) }
                    })
                }
            }
            await run(session)
            #expect(seen.names(of: "starter") == ["didStartLoad", "didFinishLoad", "didComplete"])
            #expect(seen.names(of: "late") == ["didFinishLoad", "didComplete"])
            #expect(seen.names(of: "lateAll") == ["didFinishLoad", "didComplete"])
            #expect(seen.names(of: "fromNotification") == ["didFinishLoad", "didComplete"])
            started.forEach { $0.invalidate() }
            withExtendedLifetime(starter) {}
        }
    }

    @Test("A session's observation never sees another session's events; observeAll sees both, with the right session")
    @MainActor
    func scopedToItsSession() async throws {
        await WebviewProviderRegistry.withIsolatedRegistry {
            registerFake("waits", behavior: FakeWebviewProvider.waitForever)
            registerFake("succeeds")
            let first = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("waits")), environment: graphical)
            let second = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("succeeds")), environment: graphical)
            let seen = Sightings()
            // The first session is cancelled from another thread once its page is showing (a timer
            // could fire before the session started on a busy machine).
            let firstObservation = first.observe { event in
                seen.add("first", event)
                if case .didStartLoad = event { DispatchQueue.global().async { first.cancel() } }
            }
            let secondObservation = second.observe { seen.add("second", $0) }
            let all = WebAuthSession.observeAll { observed, event in
                if observed === first { seen.add("all-first", event) }
                if observed === second { seen.add("all-second", event) }
            }
            defer { all.invalidate() }
            await run(first)
            await run(second)
            #expect(seen.names(of: "first") == ["didStartLoad", "didFail"])
            #expect(seen.names(of: "second") == ["didStartLoad", "didFinishLoad", "didComplete"])
            #expect(seen.entries.filter { $0.hasPrefix("all-") } == [
                "all-first:didStartLoad", "all-first:didFail",
                "all-second:didStartLoad", "all-second:didFinishLoad", "all-second:didComplete",
            ])
            withExtendedLifetime((firstObservation, secondObservation)) {}
        }
    }

    @Test("Reports from three other threads at once arrive on the main actor, each thread's in its order, in the notifications' order")
    @MainActor
    func reportsFromOtherThreads() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let presented = Mutex<WebAuthSessionReporter?>(nil)
            registerFake(behavior: { presentation in presented.withLock { $0 = presentation.reporter } })
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            var observed: [String] = []
            var allObserved: [String] = []
            var offMain = 0
            let recorder = WebAuthEventRecorder(session: session)
            let own = session.observe { event in
                if !MainContext.isCurrent { offMain += 1 }
                observed.append(Self.page(event))
            }
            let all = WebAuthSession.observeAll { observing, event in
                guard observing === session else { return }
                if !MainContext.isCurrent { offMain += 1 }
                allObserved.append(Self.page(event))
            }
            defer { all.invalidate() }
            _ = try await session.prepare()
            let outcome = Task { @MainActor in try await session.start(authorizationURL: authorizationURL, expectedState: "s-123") }
            while presented.withLock({ $0 }) == nil { await Task.yield() }
            let reporter = try #require(presented.withLock { $0 })
            let perThread = 40
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    DispatchQueue.concurrentPerform(iterations: 3) { thread in
                        for index in 0..<perThread {
                            let page = URL(string: "https://idp.example.test/t\(thread)/\(index)")!
                            if index.isMultiple(of: 2) { reporter.didStartLoad(page) } else { reporter.didFinishLoad(page) }
                        }
                    }
                    reporter.handleRedirect(URL(string: "http://127.0.0.1:8080/callback?code=c1&state=s-123")!)
                    done.resume()
                }
            }
            #expect(try await outcome.value.code == "c1")
            let posted = recorder.records.map { $0.url?.path ?? "" }
            #expect(observed.count == 3 * perThread + 1)
            #expect(observed.last == "/callback")
            #expect(observed == posted, "the observation's order is the notifications' order")
            #expect(allObserved == posted)
            #expect(offMain == 0, "handlers ran off the main actor \(offMain) times")
            for thread in 0..<3 {
                let prefix = "/t\(thread)/"
                #expect(observed.filter { $0.hasPrefix(prefix) } == (0..<perThread).map { "\(prefix)\($0)" }, "thread \(thread)")
            }
            withExtendedLifetime(own) {}
        }
    }

    @Test("An observeAll handler is never re-entered: another session cancelled from inside it is delivered after the current event")
    @MainActor
    func notReenteredAcrossSessions() async throws {
        await WebviewProviderRegistry.withIsolatedRegistry {
            registerFake(behavior: FakeWebviewProvider.waitForever)
            let running = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let other = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let seen = Sightings()
            var depth = 0
            var deepest = 0
            let all = WebAuthSession.observeAll { observed, event in
                guard observed === running || observed === other else { return }
                depth += 1
                deepest = max(deepest, depth)
                seen.add(observed === running ? "running" : "other", event)
                if observed === running, case .didStartLoad = event {
                    other.cancel()
                    DispatchQueue.global().async { running.cancel() }
                }
                depth -= 1
            }
            defer { all.invalidate() }
            await run(running)
            #expect(seen.entries == ["running:didStartLoad", "other:didFail", "running:didFail"])
            #expect(deepest == 1, "the handler was re-entered")
        }
    }

    @Test("The handler, and what it captured, is released on the main thread whichever thread invalidates or releases the observation", arguments: ["invalidate", "release"])
    @MainActor
    func handlerReleasedOnMain(how: String) async throws {
        let releasedOnMain = Mutex<[Bool]>([])
        let session = WebAuthSession(redirectURI: testRedirect, environment: graphical)
        let held = Mutex<WebAuthObservation?>(nil)
        held.withLock { $0 = observeHoldingWitness(session) { onMain in releasedOnMain.withLock { $0.append(onMain) } } }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                if how == "invalidate" { held.withLock { $0 }?.invalidate() }
                held.withLock { $0 = nil }
                done.resume()
            }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while releasedOnMain.withLock({ $0.isEmpty }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(releasedOnMain.withLock { $0 } == [true])
    }

    /// The path of the URL an event carries.
    static func page(_ event: WebAuthEvent) -> String {
        switch event {
        case .didStartLoad(let url), .didFinishLoad(let url), .willSwitchToBrokerApp(let url), .didComplete(let url): url.path
        case .willSwitchToSystemBrowser(let handOver): handOver.pageURL?.path ?? "willSwitchToSystemBrowser"
        case .didFail(let error): error.url?.path ?? "didFail"
        }
    }
}

/// Prepares and starts `session` (the authorization URL carries `state=s-123`); returns when it ended.
@MainActor
private func run(_ session: WebAuthSession) async {
    do throws(WebAuthError) {
        _ = try await session.prepare()
        _ = try await session.start(authorizationURL: authorizationURL, expectedState: "s-123")
    } catch {}
}

/// An observation of `session` whose handler holds the only reference to a ``Witness``.
func observeHoldingWitness(_ session: WebAuthSession, onRelease: @escaping @Sendable (_ onMain: Bool) -> Void) -> WebAuthObservation {
    let witness = Witness(onRelease)
    return session.observe { _ in _ = witness }
}

/// Says on which thread it was deinitialized: the main actor's (`true`) or another.
final class Witness: Sendable {
    let onDeinit: @Sendable (_ onMain: Bool) -> Void
    init(_ onDeinit: @escaping @Sendable (_ onMain: Bool) -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit(MainContext.isCurrent) }
}

/// What a test's observers saw, in one list of `who:event`.
@MainActor
final class Sightings {
    private(set) var entries: [String] = []

    func add(_ who: String, _ event: WebAuthEvent) {
        entries.append("\(who):\(String(describing: event).prefix { $0 != "(" })")
    }

    /// The events `who` saw, in order.
    func names(of who: String) -> [String] {
        entries.filter { $0.hasPrefix(who + ":") }.map { String($0.dropFirst(who.count + 1)) }
    }

    /// Records `session`'s notifications as `who` (observers with `queue: nil`).
    func observeNotifications(of session: WebAuthSession, as who: String) -> [any NSObjectProtocol] {
        WebAuthEvent.Kind.allCases.map { kind in
            NotificationCenter.default.addObserver(forName: kind.notificationName, object: session, queue: nil) { _ in
                MainActor.assumeIsolated {
                    self.entries.append("\(who):\(kind)")
                }
            }
        }
    }

    /// Waits (up to 5 s) until `condition` holds for the entries.
    func until(_ condition: ([String]) -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition(entries), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }
}
