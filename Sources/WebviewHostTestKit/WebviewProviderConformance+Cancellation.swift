import Foundation
import WebviewHost

/// The checks of the ways to cancel: from another thread, before `start`, by cancelling the
/// awaiting task, and from inside an observer.
extension WebviewProviderConformance.Probe {
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
}
