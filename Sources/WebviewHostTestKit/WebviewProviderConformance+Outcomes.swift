import Foundation
import WebviewHost

/// The checks of the one outcome: a sign-in that succeeds, one that times out, a second session
/// refused while the first runs, and nothing delivered after the end.
extension WebviewProviderConformance.Probe {
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
        } catch where error.code == .timedOut {
            // The session's clock runs from `prepare`: a prepare that took the whole limit (a
            // process started on a loaded machine) is the timeout this check asks for.
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
}
