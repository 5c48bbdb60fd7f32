import Foundation
import Logging
import Synchronization

/// The steps of ``WebAuthSession/prepare()``: choosing and making the provider's session, and
/// waiting for it to get ready without outliving the session's outcome.
extension WebAuthSession {
    /// Chooses the provider, claims the slot and makes the provider's session.
    @MainActor
    func makeProviderSession() throws(WebAuthError) -> any WebviewProviderSession {
        let redirect = try RedirectURI(requestedRedirectURI)
        let provider = try store.selectProvider(for: parameters, in: environment)
        guard store.slot.claim(for: self) else { throw WebAuthError.sessionAlreadyInProgress() }
        let request = WebAuthRequest(redirectURI: redirect, parameters: parameters, environment: environment)
        state.withLock { $0.presentation = Presentation(provider: provider, request: request) }
        Self.logger.debug("session prepared", metadata: ["provider": "\(provider.id)"])
        let session: any WebviewProviderSession
        do {
            session = try provider.makeSession(for: request, reporter: WebAuthSessionReporter(session: self, generation: 0))
        } catch {
            throw Self.webAuthError(error)
        }
        let stillRunning = state.withLock {
            $0.presentation?.providerSession = session
            return !$0.isFinished
        }
        // Cancelled while the provider was being made: dismiss now, it was not there to be dismissed.
        if !stillRunning { scheduleDismiss(session) }
        return session
    }

    /// Runs the provider's `operation`, but returns as soon as the session has its outcome
    /// (a cancel, the timeout, the task's cancellation), even if `operation` never returns.
    @MainActor
    func untilOutcome(_ operation: @escaping @MainActor () async throws -> URL) async throws(WebAuthError) -> URL {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<URL, WebAuthError>, Never>) in
                let early = state.withLock { state -> Bool in
                    guard case .preparing(var preparing) = state else { return true }
                    preparing.waiting = continuation
                    state = .preparing(preparing)
                    return false
                }
                if early {
                    continuation.resume(returning: .failure(terminalError() ?? .canceled()))
                    return
                }
                Task { @MainActor in
                    let result: Result<URL, WebAuthError>
                    do {
                        result = .success(try await operation())
                    } catch {
                        result = .failure(Self.webAuthError(error))
                    }
                    let waiting = self.state.withLock { state -> CheckedContinuation<Result<URL, WebAuthError>, Never>? in
                        guard case .preparing(var preparing) = state else { return nil }
                        defer { state = .preparing(preparing) }
                        return preparing.waiting.take()
                    }
                    waiting?.resume(returning: result)
                }
            }
        } onCancel: {
            self.cancel()
        }
        return try result.get()
    }
}
