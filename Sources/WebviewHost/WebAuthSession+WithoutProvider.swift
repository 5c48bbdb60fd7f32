import Foundation
import Synchronization

extension WebAuthSession {
    /// A session no web user agent presents (a token broker, a sign-in on another device): takes
    /// the one-session slot, runs `begin` (its first events, its timeout), then `operation` in a
    /// task of its own, and waits for the one outcome. `operation`'s value ends the session with
    /// `didComplete` at the URL `completedAt` gives; a throw, ``cancel()``, the timeout or the
    /// awaiting task's cancellation end it with that error and cancel `operation`'s task.
    ///
    /// - Throws: `sessionAlreadyInProgress`, `canceled`, `timedOut`, or what `operation` threw.
    @MainActor
    func runWithoutProvider<Value: Sendable>(
        named name: String,
        begin: @MainActor () -> Void,
        completedAt: @escaping @MainActor () throws(WebAuthError) -> URL,
        _ operation: @escaping @MainActor () async throws(WebAuthError) -> Value
    ) async throws(WebAuthError) -> Value {
        let fresh: Bool = state.withLock {
            guard case .created = $0 else { return false }
            $0 = .presenting(Presenting())
            return true
        }
        guard fresh else {
            throw terminalError() ?? WebAuthError(.invalidParameters, "\(name) needs a new session; make one per sign-in.")
        }
        guard store.slot.claim(for: self) else {
            let error = WebAuthError.sessionAlreadyInProgress()
            finish(.failure(error))
            throw error
        }
        begin()
        let value = Mutex<Value?>(nil)
        let run = Task { @MainActor in
            do throws(WebAuthError) {
                let result = try await operation()
                value.withLock { $0 = result }
                finish(.success(try WebAuthResponse(callbackURL: try completedAt())))
            } catch {
                finish(.failure(error))
            }
        }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let early = state.withLock { $0.wait(for: continuation) }
                if let early { continuation.resume(returning: early) }
            }
        } onCancel: {
            self.cancel()
        }
        switch outcome {
        case .success:
            if let result = value.withLock({ $0 }) { return result }
            throw WebAuthError(.invalidResponse, "The sign-in's result was lost.")
        case .failure(let error):
            run.cancel()  // ends the operation if it still runs (cancel, timeout)
            throw error
        }
    }
}
