import Foundation
import ScenarioSupport
import SignIn
import Synchronization
import Testing
import WebviewHost

/// Issue 41: each call its own events. `onStep` gets the steps of the call it was given to, with
/// their session, and never another call's: not a second application's failing call, not its
/// cancel.
extension GlewlwydSignInTests {
    /// What one call's `onStep` saw: the event and which session sent it.
    @MainActor final class StepLog {
        var steps: [(event: WebAuthEvent, session: ObjectIdentifier)] = []
        var names: [String] { steps.map { "\($0.event.kind)" } }
        func record(_ step: WebAuthStep) { steps.append((step.event, ObjectIdentifier(step.session))) }
    }

    func parameters(for provider: ScriptedBrowserProvider, log: StepLog) -> InteractiveTokenParameters {
        var parameters = InteractiveTokenParameters(scopes: [], webviewParameters: .init(webviewType: .provider(provider.id)))
        parameters.onStep = { step in log.record(step) }
        return parameters
    }

    @Test("onStep: a call sees its own steps only; a second application's failing call and the first call's cancel each reach their own call")
    @MainActor func eachCallItsOwnSteps() async throws {
        let first = try makeApplication(), second = try makeApplication()
        let firstLog = StepLog(), secondLog = StepLog()
        let everyStep = Mutex<[String]>([])
        let everySession = WebAuthSession.observeAll { _, event in everyStep.withLock { $0.append("\(event.kind)") } }
        defer { everySession.invalidate() }
        let hanging = provider(.hang)
        try await WebviewProviderRegistry.withIsolatedRegistry { () async throws in
            WebviewProviderRegistry.register(hanging)
            let running = Task { @MainActor () -> WebAuthError.Code? in
                do throws(WebAuthError) {
                    _ = try await first.acquireToken(with: parameters(for: hanging, log: firstLog))
                    return nil
                } catch {
                    return error.code
                }
            }
            // The first call's session holds the slot once it started (its provider never answers).
            let started = await ScenarioHost.wait(upTo: Patience.event) { !hanging.log.authorizationURLs.isEmpty }
            try #require(started, "the first sign-in started")
            var secondError: WebAuthError?
            do throws(WebAuthError) {
                _ = try await second.acquireToken(with: parameters(for: hanging, log: secondLog))
            } catch {
                secondError = error
            }
            #expect(secondError?.code == .sessionAlreadyInProgress)
            #expect(secondLog.names == ["didFail"], "the second call's own failure: \(secondLog.names)")
            #expect(!firstLog.names.contains("didFail"), "not the first call's: \(firstLog.names)")
            first.cancelCurrentInteractiveSession()
            #expect(await running.value == .canceled)
        }
        #expect(firstLog.names.last == "didFail", "\(firstLog.names)")
        #expect(firstLog.names.filter { $0 == "didFail" }.count == 1, "\(firstLog.names)")
        #expect(Set(firstLog.steps.map(\.session)).count == 1, "one session's steps")
        #expect(secondLog.names == ["didFail"], "the first call's cancel is not the second's: \(secondLog.names)")
        #expect(Set(secondLog.steps.map(\.session)).isDisjoint(with: firstLog.steps.map(\.session)))
        #expect(everyStep.withLock { $0.filter { $0 == "didFail" }.count } == 2, "observeAll still sees both")
    }

    @Test("onStep: a sign-in's steps, each with its session, end with didComplete before the tokens come back")
    @MainActor func onStepOfASignIn() async throws {
        let app = try makeApplication()
        let log = StepLog()
        let browser = provider(.signIn([alice]))
        let result = try await WebviewProviderRegistry.withIsolatedRegistry { () async throws(WebAuthError) in
            WebviewProviderRegistry.register(browser)
            return try await app.acquireToken(with: parameters(for: browser, log: log))
        }
        #expect(result.account.username == server.userEmail)
        #expect(log.names.last == "didComplete", "\(log.names)")
        #expect(!log.names.contains("didFail"), "\(log.names)")
        #expect(Set(log.steps.map(\.session)).count == 1)
    }
}
