import Foundation
import Synchronization
import Testing
import WebviewHost

/// `WebAuthSession.handOverToBroker(at:_:)`: a token broker run as a session.
@Suite("A session handed over to a token broker", .timeLimit(.minutes(1)))
struct TokenBrokerHandOverTests {
    let authority = URL(string: "https://login.microsoftonline.com/contoso")!

    @Test("Success: willSwitchToBrokerApp, then didComplete; the broker's value comes back; the slot is free after")
    @MainActor
    func success() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let session = WebAuthSession(redirectURI: testRedirect, environment: graphical)
            let events = Task { await collect(session) }
            let value = try await session.handOverToBroker(at: authority) { () async throws(WebAuthError) -> String in "tokens" }
            #expect(value == "tokens")
            #expect(await events.value == ["willSwitchToBrokerApp", "didComplete"])
            let next = WebAuthSession(redirectURI: testRedirect, environment: graphical)
            #expect(try await next.handOverToBroker(at: authority) { () async throws(WebAuthError) -> Int in 1 } == 1)
        }
    }

    @Test("The parameters' timeout ends it with timedOut and cancels the broker's task")
    @MainActor
    func timeout() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(timeout: .milliseconds(300)), environment: graphical)
            let (brokerCancelled, signal) = AsyncStream<Void>.makeStream()
            let events = Task { await collect(session) }
            do {
                _ = try await session.handOverToBroker(at: authority) { () async throws(WebAuthError) -> String in
                    do {
                        try await Task.sleep(for: .seconds(600))  // a broker waiting for the person
                    } catch {
                        signal.yield()
                    }
                    throw WebAuthError.canceled()
                }
                Issue.record("a broker that never answers must time out")
            } catch let error as WebAuthError {
                #expect(error.code == .timedOut)
            }
            #expect(await events.value == ["willSwitchToBrokerApp", "didFail"])
            var cancelled = brokerCancelled.makeAsyncIterator()
            #expect(await cancelled.next() != nil)  // (the suite's time limit catches a broker never cancelled)
        }
    }

    @Test("continueInSystemBrowser() while the broker runs returns false and changes nothing: the broker's value comes back")
    @MainActor
    func continueInBrowserRefused() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let session = WebAuthSession(redirectURI: testRedirect, environment: graphical)
            var events = session.events.makeAsyncIterator()
            let (asked, answer) = AsyncStream<Void>.makeStream()
            let running = Task { @MainActor in
                try await session.handOverToBroker(at: authority) { () async throws(WebAuthError) -> String in
                    var iterator = asked.makeAsyncIterator()
                    _ = await iterator.next()  // the broker answers once the app has asked
                    return "tokens"
                }
            }
            // Asked while the broker holds the session (after willSwitchToBrokerApp).
            guard case .willSwitchToBrokerApp = await events.next() else {
                Issue.record("willSwitchToBrokerApp first")
                return
            }
            #expect(session.continueInSystemBrowser() == false, "a broker presents no view to move")
            answer.yield()
            let value = try await running.value
            #expect(value == "tokens")
            guard case .didComplete = await events.next() else {
                Issue.record("didComplete next, and nothing between")
                return
            }
        }
    }

    @Test("A second session while one runs fails with sessionAlreadyInProgress; cancel ends the first with canceled")
    @MainActor
    func oneAtATime() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let first = WebAuthSession(redirectURI: testRedirect, environment: graphical)
            var firstEvents = first.events.makeAsyncIterator()
            let running = Task { @MainActor in
                try await first.handOverToBroker(at: authority) { () async throws(WebAuthError) -> String in
                    do { try await Task.sleep(for: .seconds(600)) } catch { throw WebAuthError.canceled() }
                    return "never"
                }
            }
            guard case .willSwitchToBrokerApp = await firstEvents.next() else {
                Issue.record("willSwitchToBrokerApp first")
                return
            }
            let second = WebAuthSession(redirectURI: testRedirect, environment: graphical)
            do {
                _ = try await second.handOverToBroker(at: authority) { () async throws(WebAuthError) -> String in "second" }
                Issue.record("two sessions at once")
            } catch let error as WebAuthError {
                #expect(error.code == .sessionAlreadyInProgress)
            }
            first.cancel()
            do {
                _ = try await running.value
                Issue.record("cancelled")
            } catch let error as WebAuthError {
                #expect(error.code == .canceled)
            }
        }
    }
}
