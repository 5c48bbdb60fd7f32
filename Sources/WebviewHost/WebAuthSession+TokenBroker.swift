public import Foundation
import Logging
import Synchronization

extension WebAuthSession {
    /// Runs a token broker (a program that signs people in and returns tokens, not a callback)
    /// as this session, in place of a web user agent: the session takes the one-session slot,
    /// posts `webAuthWillSwitchToBrokerApp` with `url` (the authority the broker signs in at),
    /// runs `operation`, and ends with `webAuthDidComplete` (with `url`) when it returns or
    /// `webAuthDidFail` when it throws. ``cancel()``, the parameters' timeout or the cancellation of
    /// the awaiting task end the session with `canceled` (or `timedOut`) at once and cancel
    /// `operation`'s task, which must then end the broker's flow.
    ///
    /// Call it on a new session instead of ``prepare()``; the session's observers and
    /// notifications see the same contract as for any provider.
    ///
    /// - Throws: `sessionAlreadyInProgress`, `canceled`, `timedOut`, or what `operation` threw.
    @MainActor
    public func handOverToBroker<Value: Sendable>(
        at url: URL, _ operation: @escaping @Sendable () async throws(WebAuthError) -> Value
    ) async throws(WebAuthError) -> Value {
        let fresh: Bool = state.withLock {
            guard case .created = $0 else { return false }
            $0 = .presenting(Presenting())
            return true
        }
        guard fresh else {
            throw terminalError() ?? WebAuthError(.invalidParameters, "handOverToBroker(at:) needs a new session; make one per sign-in.")
        }
        guard store.slot.claim(for: self) else {
            let error = WebAuthError.sessionAlreadyInProgress()
            finish(.failure(error))
            throw error
        }
        Self.logger.debug("session handed over to a token broker")
        post(.willSwitchToBrokerApp(url))
        armTimeout()  // only the parameters' timeout: no provider, and the broker has none of its own

        let value = Mutex<Value?>(nil)
        let run = Task { @MainActor in
            do throws(WebAuthError) {
                let result = try await operation()
                value.withLock { $0 = result }
                finish(.success(try WebAuthResponse(callbackURL: Self.withoutQuery(url))))
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
            throw WebAuthError(.invalidResponse, "The broker's result was lost.")
        case .failure(let error):
            run.cancel()  // ends the broker's flow if it still runs (cancel, timeout)
            throw error
        }
    }

    /// `url` without query and fragment: an event names the page or authority, never parameters
    /// (a code in a verification link's query).
    static func withoutQuery(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.query = nil
        components.fragment = nil
        return components.url ?? url
    }
}
