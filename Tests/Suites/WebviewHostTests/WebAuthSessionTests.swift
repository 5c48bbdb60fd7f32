import Foundation
import Synchronization
import Testing
import WebviewHost
import WebviewHostTestKit

@Suite("WebAuthSession: one outcome, one session at a time, notifications")
struct WebAuthSessionTests {
    @Test("Success returns the response; the prepared redirect URI (with its port) is the one matched")
    @MainActor
    func success() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let provider = registerFake(prepareRedirect: { _ in URL(string: "http://127.0.0.1:49152/callback")! })
            let session = WebAuthSession(redirectURI: URL(string: "http://127.0.0.1/callback")!, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let redirect = try await session.prepare()
            #expect(redirect.absoluteString == "http://127.0.0.1:49152/callback")
            let response = try await session.start(authorizationURL: authorizationURL, expectedState: "s-123")
            #expect(response.code == "c1")
            #expect(response.callbackURL.port == 49152)
            // The host is the one owner of the end: the provider, which reported the redirect, was
            // dismissed (once) before the caller learnt the outcome.
            #expect(provider.log.all == [.made, .prepared, .presented(authorizationURL), .dismissed])
            await Task.yield()
            #expect(provider.log.all == [.made, .prepared, .presented(authorizationURL), .dismissed])
            #expect(await collect(session) == ["didStartLoad", "didFinishLoad", "didComplete"])
        }
    }

    @Test("A callback for another port, or the login page's redirect_uri= query, does not end the session")
    @MainActor
    func nonMatchingRedirectIgnored() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            registerFake(behavior: { presentation in
                #expect(!presentation.reporter.handleRedirect(URL(string: "http://127.0.0.1:9999/callback?code=x")!))
                #expect(!presentation.reporter.handleRedirect(
                    URL(string: "http://127.0.0.1:7000/login?redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2Fcallback")!))
                #expect(presentation.reporter.handleRedirect(URL(string: "http://127.0.0.1:8080/callback?code=real&state=s-123")!))
                // Late and duplicate redirects are consumed (not loaded) but change nothing.
                #expect(presentation.reporter.handleRedirect(URL(string: "http://127.0.0.1:8080/callback?code=late&state=s-123")!))
                presentation.reporter.fail(.canceled())
            })
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            _ = try await session.prepare()
            let response = try await session.start(authorizationURL: authorizationURL, expectedState: "s-123")
            #expect(response.code == "real")
        }
    }

    @Test("A server error or a wrong state in the callback ends the session with that error and didFail")
    @MainActor
    func callbackErrors() async throws {
        for (query, code) in [("error=access_denied&error_description=no&state=s-123", WebAuthError.Code.server), ("code=c&state=evil", .stateMismatch)] {
            try await WebviewProviderRegistry.withIsolatedRegistry {
                registerFake(behavior: FakeWebviewProvider.redirect(query: query))
                let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
                let recorder = WebAuthEventRecorder(session: session)
                _ = try await session.prepare()
                await #expect(throws: WebAuthError.self) { try await session.start(authorizationURL: authorizationURL, expectedState: "s-123") }
                #expect(recorder.records.last?.error?.code == code)
                #expect(recorder.terminalCount == 1)
            }
        }
    }

    @Test("A second session while one runs fails at once; the slot is free after every kind of ending")
    @MainActor
    func oneSessionAtATime() async throws {
        let endings: [(String, FakeWebviewProvider.Behavior, (WebAuthSession) -> Void)] = [
            ("success", FakeWebviewProvider.redirect(query: "code=ok"), { _ in }),
            ("failure", FakeWebviewProvider.fail(WebAuthError(.network, "down")), { _ in }),
            ("cancel", FakeWebviewProvider.waitForever, { session in session.cancel() }),
            ("user cancel", { $0.reporter.fail(.userCanceled()) }, { _ in }),
            ("throwing present", { _ in throw WebAuthError(.browserLaunchFailed, "no browser") }, { _ in }),
        ]
        for (name, behavior, end) in endings {
            try await WebviewProviderRegistry.withIsolatedRegistry {
                registerFake(behavior: behavior)
                let parameters = WebviewParameters(webviewType: .provider("fake"), timeout: .seconds(30))
                let first = WebAuthSession(redirectURI: testRedirect, parameters: parameters, environment: graphical)
                _ = try await first.prepare()

                let second = WebAuthSession(redirectURI: testRedirect, parameters: parameters, environment: graphical)
                let secondEvents = WebAuthEventRecorder(session: second)
                do throws(WebAuthError) {
                    _ = try await second.prepare()
                    Issue.record("\(name): second session prepared while the first held the slot")
                } catch {
                    #expect(error.code == .sessionAlreadyInProgress, "\(name)")
                }
                #expect(secondEvents.shortNames == ["didFail"], "\(name): the refused session reports its own failure only")

                let running = Task { @MainActor in try await first.start(authorizationURL: authorizationURL) }
                try await Task.sleep(for: .milliseconds(20))
                end(first)
                _ = await running.result

                let third = WebAuthSession(redirectURI: testRedirect, parameters: parameters, environment: graphical)
                _ = try await third.prepare()  // must not throw sessionAlreadyInProgress
                third.cancel()
            }
        }
    }

    @Test("Abandoning a prepared session (dropping it) frees the slot and dismisses the provider")
    @MainActor
    func abandonedSession() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let provider = registerFake()
            do {
                let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
                _ = try await session.prepare()
            }
            try await Task.sleep(for: .milliseconds(50))
            #expect(provider.log.dismissCount == 1)
            let next = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            _ = try await next.prepare()
            next.cancel()
        }
    }

    @Test("Timeout ends a waiting session with timedOut and a message naming the time")
    @MainActor
    func timeout() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let provider = registerFake(behavior: FakeWebviewProvider.waitForever)
            let session = WebAuthSession(
                redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake"), timeout: .milliseconds(300)),
                environment: graphical)
            _ = try await session.prepare()
            do throws(WebAuthError) {
                _ = try await session.start(authorizationURL: authorizationURL)
                Issue.record("expected timedOut")
            } catch {
                #expect(error.code == .timedOut)
                #expect(error.message.contains("0.3 seconds"))
            }
            #expect(provider.log.dismissCount == 1)
        }
    }

    @Test("Cancel from another thread while the provider waits: canceled, dismissed once")
    @MainActor
    func cancelFromAnotherThread() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let provider = registerFake(behavior: FakeWebviewProvider.waitForever)
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            _ = try await session.prepare()
            let observation = session.observe { event in
                if case .didStartLoad = event { DispatchQueue.global().async { session.cancel() } }
            }
            defer { observation.invalidate() }
            await #expect(throws: WebAuthError.self) { try await session.start(authorizationURL: authorizationURL) }
            #expect(provider.log.dismissCount == 1)
            #expect(await collect(session) == ["didStartLoad", "didFail"])
        }
    }

    @Test("start before prepare, and prepare twice, are invalidParameters")
    @MainActor
    func misuse() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            registerFake()
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            do throws(WebAuthError) {
                _ = try await session.start(authorizationURL: authorizationURL)
                Issue.record("start before prepare succeeded")
            } catch { #expect(error.code == .invalidParameters) }
            let other = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            _ = try await other.prepare()
            do throws(WebAuthError) {
                _ = try await other.prepare()
                Issue.record("second prepare succeeded")
            } catch { #expect(error.code == .invalidParameters) }
            other.cancel()
        }
    }

    @Test("A malformed redirect URI fails prepare with invalidParameters and posts didFail")
    @MainActor
    func malformedRedirect() async throws {
        await WebviewProviderRegistry.withIsolatedRegistry {
            registerFake()
            let session = WebAuthSession(redirectURI: URL(string: "callback")!, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let recorder = WebAuthEventRecorder(session: session)
            do throws(WebAuthError) {
                _ = try await session.prepare()
                Issue.record("prepared a relative redirect URI")
            } catch { #expect(error.code == .invalidParameters) }
            #expect(recorder.shortNames == ["didFail"])
        }
    }

    @Test("Notifications: on the main thread, in order, with url / error / webview in userInfo")
    @MainActor
    func notifications() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let view = WebviewHandle(address: UnsafeMutableRawPointer(bitPattern: 0x1000)!)
            let page = URL(string: "https://idp.example.test/login")!
            registerFake(behavior: { presentation in
                presentation.reporter.setWebview(view)
                // Reports from a background thread still arrive on the main thread, in order.
                DispatchQueue.global().async {
                    presentation.reporter.didStartLoad(presentation.authorizationURL)
                    presentation.reporter.didFinishLoad(presentation.authorizationURL)
                    presentation.reporter.willSwitchToBrokerApp(URL(string: "msauth://broker")!)
                    presentation.reporter.didStartLoad(page)
                    presentation.reporter.didFinishLoad(page)
                    presentation.reporter.handleRedirect(URL(string: "http://127.0.0.1:8080/callback?code=n&state=s-123")!)
                    presentation.reporter.didStartLoad(page)  // after the end: dropped
                }
            })
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let recorder = WebAuthEventRecorder(session: session)
            let otherSession = WebAuthSession(redirectURI: testRedirect)
            let other = WebAuthEventRecorder(session: otherSession)
            _ = try await session.prepare()
            _ = try await session.start(authorizationURL: authorizationURL, expectedState: "s-123")
            try await Task.sleep(for: .milliseconds(100))
            #expect(recorder.shortNames == ["didStartLoad", "didFinishLoad", "willSwitchToBrokerApp", "didStartLoad", "didFinishLoad", "didComplete"])
            #expect(recorder.records.allSatisfy { $0.onMainThread })
            #expect(recorder.records.allSatisfy { $0.hasWebview })
            #expect(recorder.records.map(\.url?.host) == ["idp.example.test", "idp.example.test", "broker", "idp.example.test", "idp.example.test", "127.0.0.1"])
            #expect(recorder.records.last?.url?.query == "code=n&state=s-123")
            #expect(other.records.isEmpty, "filtering by session object works")
            withExtendedLifetime(otherSession) {}
        }
    }

    @Test("didFail carries the error under the error key")
    @MainActor
    func failureNotification() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            registerFake(behavior: FakeWebviewProvider.fail(WebAuthError(.tls, "untrusted", url: URL(string: "https://bad.test/")!)))
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let recorder = WebAuthEventRecorder(session: session)
            _ = try await session.prepare()
            _ = try? await session.start(authorizationURL: authorizationURL)
            #expect(recorder.shortNames == ["didStartLoad", "didFail"])
            #expect(recorder.records.last?.error?.code == .tls)
            #expect(recorder.records.last?.url?.host == "bad.test")
        }
    }

    @Test("Completion-handler form calls back once, on the main thread")
    @MainActor
    func completionHandler() async {
        await WebviewProviderRegistry.withIsolatedRegistry {
            registerFake()
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let result = await withCheckedContinuation { continuation in
                session.authenticate(expectedState: "s-123", authorizationURL: { _ in authorizationURL }) { result in
                    continuation.resume(returning: (result.map(\.code), MainContext.isCurrent))
                }
            }
            #expect((try? result.0.get()) == "c1")
            #expect(result.1)

            let twoPhase = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
            let redirect = await withCheckedContinuation { continuation in
                twoPhase.prepare { continuation.resume(returning: try? $0.get()) }
            }
            #expect(redirect == testRedirect)
            let code = await withCheckedContinuation { continuation in
                twoPhase.start(authorizationURL: authorizationURL, expectedState: "s-123") {
                    continuation.resume(returning: (try? $0.get())?.code)
                }
            }
            #expect(code == "c1")
        }
    }
}

@Suite("Exactly one outcome under races", .serialized)
struct ExactlyOnceTests {
    @Test("A redirect racing a cancel, 1,000 times: always exactly one outcome and one terminal event")
    @MainActor
    func redirectRacingCancel() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let presented = Mutex<WebAuthSessionReporter?>(nil)
            let provider = registerFake(behavior: { presentation in presented.withLock { $0 = presentation.reporter } })
            var completed = 0
            var canceled = 0
            for round in 0..<1_000 {
                let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("fake")), environment: graphical)
                _ = try await session.prepare()
                let events = Task { await collect(session) }
                let outcome = Task { @MainActor in try await session.start(authorizationURL: authorizationURL) }
                while presented.withLock({ $0 }) == nil { await Task.yield() }
                let reporter = presented.withLock { reporter in defer { reporter = nil }; return reporter! }
                let callback = URL(string: "http://127.0.0.1:8080/callback?code=r\(round)")!
                DispatchQueue.concurrentPerform(iterations: 2) { index in
                    if index == 0 { reporter.handleRedirect(callback) } else { session.cancel() }
                }
                switch await outcome.result {
                case .success(let response):
                    #expect(response.code == "r\(round)")
                    completed += 1
                case .failure(let error):
                    #expect((error as? WebAuthError)?.code == .canceled)
                    canceled += 1
                }
                let names = await events.value
                #expect(names.filter { $0 == "didComplete" || $0 == "didFail" }.count == 1, "round \(round): \(names)")
            }
            #expect(completed + canceled == 1_000)
            #expect(provider.log.dismissCount == 1_000)
        }
    }
}
