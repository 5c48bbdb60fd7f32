import Foundation
import Synchronization
import Testing
import WebviewHost
import WebviewHostTestKit

/// The host's half of the session contract, as app code meets it: observers that cancel, reports
/// racing the outcome from other threads, tasks that get cancelled, providers that never get ready.
@Suite("Session contract: ordered delivery, task cancellation, hand-over through the host", .serialized)
struct SessionContractTests {
    @Test("cancel() inside a didFinishLoad observer: every observer sees didFinishLoad before didFail, didFail last")
    @MainActor
    func cancelInsideObserver() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            registerFake(behavior: { presentation in
                presentation.reporter.didStartLoad(presentation.authorizationURL)
                presentation.reporter.didFinishLoad(presentation.authorizationURL)
            })
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            // Registered first, so it runs first: cancels from inside the event.
            let canceller = NotificationCenter.default.addObserver(forName: .webAuthDidFinishLoad, object: session, queue: nil) { _ in
                session.cancel()
            }
            defer { NotificationCenter.default.removeObserver(canceller) }
            let later = WebAuthEventRecorder(session: session)
            _ = try await session.prepare()
            await #expect(throws: WebAuthError.self) { try await session.start(authorizationURL: authorizationURL) }
            #expect(later.shortNames == ["didStartLoad", "didFinishLoad", "didFail"])
            #expect(later.records.last?.error?.code == .canceled)
            #expect(await collect(session) == ["didStartLoad", "didFinishLoad", "didFail"])
        }
    }

    @Test("Reports from another thread racing the outcome, 500 times: the terminal event is always the last one")
    @MainActor
    func reportsRacingTheOutcome() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let presented = Mutex<WebAuthSessionReporter?>(nil)
            registerFake(behavior: { presentation in presented.withLock { $0 = presentation.reporter } })
            for round in 0..<500 {
                let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
                let recorder = WebAuthEventRecorder(session: session)
                _ = try await session.prepare()
                let events = Task { await collect(session) }
                let outcome = Task { @MainActor in try await session.start(authorizationURL: authorizationURL) }
                while presented.withLock({ $0 }) == nil { await Task.yield() }
                let reporter = presented.withLock { reporter in defer { reporter = nil }; return reporter! }
                DispatchQueue.concurrentPerform(iterations: 3) { index in
                    switch index {
                    case 0: for _ in 0..<5 { reporter.didStartLoad(authorizationURL); reporter.didFinishLoad(authorizationURL) }
                    case 1: session.cancel()
                    default: reporter.didFinishLoad(authorizationURL)
                    }
                }
                _ = await outcome.result
                let streamed = await events.value
                try await Task.sleep(for: .milliseconds(1))
                let posted = recorder.shortNames
                #expect(posted.last == "didFail" && posted.filter { $0 == "didFail" }.count == 1, "round \(round): \(posted)")
                #expect(streamed == posted, "round \(round): the stream and the notifications agree")
            }
        }
    }

    @Test("Cancelling the task that awaits start() ends the session with canceled, at once")
    @MainActor
    func taskCancellationDuringStart() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let provider = registerFake(behavior: FakeWebviewProvider.waitForever)
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let recorder = WebAuthEventRecorder(session: session)
            _ = try await session.prepare()
            let waiting = Task { @MainActor in try await session.start(authorizationURL: authorizationURL) }
            while !provider.log.all.contains(.presented(authorizationURL)) { await Task.yield() }
            waiting.cancel()
            let result = await waiting.result
            #expect((result.error as? WebAuthError)?.code == .canceled)
            #expect(provider.log.dismissCount == 1)
            #expect(recorder.shortNames == ["didStartLoad", "didFail"])
            try await expectSlotFree()
        }
    }

    @Test("Cancelling the task that awaits authenticate() while the provider never gets ready: canceled, dismissed once")
    @MainActor
    func taskCancellationDuringPrepare() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let provider = registerFake(preparesUntilDismissed: true)
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let recorder = WebAuthEventRecorder(session: session)
            let waiting = Task { @MainActor in
                try await session.authenticate(authorizationURL: { _ in authorizationURL })
            }
            while !provider.log.all.contains(.prepared) { await Task.yield() }
            waiting.cancel()
            let result = await waiting.result
            #expect((result.error as? WebAuthError)?.code == .canceled)
            #expect(provider.log.all == [.made, .prepared, .dismissed])
            #expect(recorder.shortNames == ["didFail"])
            try await expectSlotFree()
        }
    }

    @Test("A task cancelled before it calls prepare() or start() ends the session with canceled without presenting")
    @MainActor
    func alreadyCancelledTask() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let provider = registerFake(behavior: FakeWebviewProvider.waitForever)
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            _ = try await session.prepare()
            let waiting = Task { @MainActor in
                withUnsafeCurrentTask { $0?.cancel() }
                return try await session.start(authorizationURL: authorizationURL)
            }
            #expect((await waiting.result.error as? WebAuthError)?.code == .canceled)
            #expect(!provider.log.all.contains(.presented(authorizationURL)))
            #expect(provider.log.dismissCount == 1)
            try await expectSlotFree()
        }
    }

    @Test("A provider that never gets ready: cancel() from another thread and the timeout both end prepare()")
    @MainActor
    func stuckPreparation() async throws {
        for ending in ["cancel", "timeout"] {
            try await WebviewProviderRegistry.withIsolatedRegistry {
                let provider = registerFake(preparesUntilDismissed: true)
                let parameters = WebviewParameters(webviewType: .provider("fake"), timeout: ending == "timeout" ? .milliseconds(200) : nil)
                let session = WebAuthSession(redirectURI: testRedirect, parameters: parameters, environment: graphical)
                if ending == "cancel" {
                    // Cancelled from another thread once the provider is preparing (not after a fixed time).
                    Task.detached {
                        let deadline = ContinuousClock.now + .seconds(10)
                        while !provider.log.all.contains(.prepared), ContinuousClock.now < deadline {
                            try? await Task.sleep(for: .milliseconds(5))
                        }
                        session.cancel()
                    }
                }
                do throws(WebAuthError) {
                    _ = try await session.prepare()
                    Issue.record("\(ending): prepare returned")
                } catch {
                    #expect(error.code == (ending == "cancel" ? .canceled : .timedOut), "\(ending)")
                }
                #expect(provider.log.dismissCount == 1, "\(ending)")
                try await expectSlotFree()
            }
        }
    }

    @Test("handleOpenURL: a custom-scheme redirect the app was opened with ends the presenting session through the host")
    @MainActor
    func handOverThroughTheHost() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let provider = registerFake(behavior: FakeWebviewProvider.waitForever)
            let redirect = URL(string: "com.example.app:/oauth2redirect")!
            #expect(!WebAuthSession.handleOpenURL("com.example.app:/oauth2redirect?code=early"), "no session yet")
            let session = WebAuthSession(redirectURI: redirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            _ = try await session.prepare()
            #expect(!WebAuthSession.handleOpenURL("com.example.app:/oauth2redirect?code=early"), "prepared, not presenting")
            let outcome = Task { @MainActor in try await session.start(authorizationURL: authorizationURL, expectedState: "s-123") }
            while !provider.log.all.contains(.presented(authorizationURL)) { await Task.yield() }
            #expect(!WebAuthSession.handleOpenURL("com.example.other:/oauth2redirect?code=x&state=s-123"), "another scheme")
            #expect(!WebAuthSession.handleOpenURL("com.example.app:/elsewhere?code=x&state=s-123"), "another path")
            #expect(WebAuthSession.handleOpenURL("com.example.app:/oauth2redirect?code=handed&state=s-123"))
            #expect(!WebAuthSession.handleOpenURL("com.example.app:/oauth2redirect?code=again&state=s-123"), "after the outcome")
            #expect(try await outcome.value.code == "handed")
        }
    }

    @Test("handleOpenURL never ends a session whose redirect URI is loopback (only its listener can)")
    @MainActor
    func noHandOverForLoopback() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let provider = registerFake(behavior: FakeWebviewProvider.waitForever)
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            _ = try await session.prepare()
            let outcome = Task { @MainActor in try await session.start(authorizationURL: authorizationURL) }
            while !provider.log.all.contains(.presented(authorizationURL)) { await Task.yield() }
            #expect(!WebAuthSession.handleOpenURL("http://127.0.0.1:8080/callback?code=forged&state=s-123"))
            session.cancel()
            #expect((await outcome.result.error as? WebAuthError)?.code == .canceled)
        }
    }
}

extension Result {
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A new session in the current registry can claim the slot (it is cancelled again at once).
@MainActor
func expectSlotFree(sourceLocation: SourceLocation = #_sourceLocation) async throws {
    if WebviewProviderRegistry.provider(withID: "slot-probe") == nil { registerFake("slot-probe") }
    let next = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("slot-probe")), environment: graphical)
    do throws(WebAuthError) {
        _ = try await next.prepare()
    } catch {
        Issue.record("the slot is not free: \(error)", sourceLocation: sourceLocation)
    }
    next.cancel()
}
