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

    /// Ends the session with the response `callback` carries (or the error it is).
    func redirectReached(_ callback: String) {
        let expectedState: String?? = state.withLock { state in
            switch state {
            case .finished: .none
            case .presenting(let presenting): .some(presenting.expectedState)
            case .created, .preparing, .prepared: .some(nil)
            }
        }
        guard let expectedState else { return }
        do {
            finish(.success(try WebAuthResponse(callbackString: callback, expectedState: expectedState, throwingOAuthError: throwsOAuthErrors)))
        } catch {
            finish(.failure(error))
        }
    }

    /// Sends a non-terminal event, unless the session already ended.
    func post(_ event: WebAuthEvent) {
        let webview: WebviewHandle?? = state.withLock { $0.isFinished ? .none : .some($0.presentation?.webview) }
        guard let webview else { return }
        channel.send(event, webview: webview, from: self)
    }
}
