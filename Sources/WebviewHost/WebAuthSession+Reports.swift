import Foundation
import Synchronization

/// What a provider's ``WebAuthSessionReporter`` reaches: the session's side of the reports.
extension WebAuthSession {
    var preparedRedirectURI: RedirectURI? { state.withLock { $0.presentation?.redirectURI } }
    var isFinished: Bool { state.withLock { $0.isFinished } }
    var failure: WebAuthError? { terminalError() }

    /// The broker schemes of the providers this session can reach.
    var brokerSchemes: Set<String> {
        Set(store.providers.flatMap { $0.brokerSchemes.map { $0.lowercased() } })
    }

    /// The redirect URI the provider of `generation` ends at.
    func redirectURI(forGeneration generation: Int) -> RedirectURI? {
        state.withLock { state in
            guard let presentation = state.presentation else { return nil }
            return presentation.redirectsByGeneration[generation] ?? (presentation.generation == generation ? presentation.redirectURI : nil)
        }
    }

    func isCurrentProvider(_ generation: Int) -> Bool {
        state.withLock { $0.generation == generation }
    }

    func setWebview(_ webview: WebviewHandle?) {
        state.withLock { $0.presentation?.webview = webview }
    }

    /// Ends the session with the response `callback` carries (or the error it is). The one place
    /// a callback is read and its `state` checked against the awaited request's; a success
    /// records that request as the one answered (``answeredRequest``).
    func redirectReached(_ callback: CallbackURL) {
        let awaited: AuthorizationRequestURL?? = state.withLock { state in
            switch state {
            case .finished: .none
            case .presenting(let presenting): .some(presenting.awaited)
            case .created, .preparing, .prepared: .some(nil)
            }
        }
        guard let awaited else { return }
        do {
            let response = try WebAuthResponse(callback: callback, expectedState: awaited?.state, throwingOAuthError: throwsOAuthErrors)
            finish(.success(response), answering: awaited)
        } catch {
            finish(.failure(error))
        }
    }

    /// The authorization request the session's response answers, once it ended with one at the
    /// redirect URI; `nil` otherwise.
    var answeredRequest: AuthorizationRequestURL? {
        state.withLock { state in
            guard case .finished(let finished) = state, case .success = finished.outcome else { return nil }
            return finished.answered
        }
    }

    /// Sends a non-terminal event, unless the session already ended.
    func post(_ event: WebAuthEvent) {
        let webview: WebviewHandle?? = state.withLock { $0.isFinished ? .none : .some($0.presentation?.webview) }
        guard let webview else { return }
        channel.send(event, webview: webview, from: self)
    }
}
