import Foundation
import Synchronization

/// What a provider's ``WebAuthSessionReporter`` reaches: the session's side of the reports.
extension WebAuthSession {
    var preparedRedirectURI: RedirectURI? { state.withLock { $0.redirectURI } }
    var isFinished: Bool { state.withLock { $0.outcome != nil } }
    var failure: WebAuthError? { terminalError() }

    /// The broker schemes of the providers this session can reach.
    var brokerSchemes: Set<String> {
        Set(store.providers.flatMap { $0.brokerSchemes.map { $0.lowercased() } })
    }

    /// The redirect URI the provider of `generation` ends at.
    func redirectURI(forGeneration generation: Int) -> RedirectURI? {
        state.withLock { $0.redirectsByGeneration[generation] ?? ($0.providerGeneration == generation ? $0.redirectURI : nil) }
    }

    func isCurrentProvider(_ generation: Int) -> Bool {
        state.withLock { $0.providerGeneration == generation }
    }

    func setWebview(_ webview: WebviewHandle?) {
        state.withLock { $0.webview = webview }
    }

    /// Ends the session with the response `callback` carries (or the error it is).
    func redirectReached(_ callback: String) {
        let expectedState: String?? = state.withLock { $0.outcome == nil ? .some($0.expectedState) : .none }
        guard let expectedState else { return }
        do {
            finish(.success(try WebAuthResponse(callbackString: callback, expectedState: expectedState)), fromProvider: true)
        } catch {
            finish(.failure(error), fromProvider: true)
        }
    }

    /// Sends a non-terminal event, unless the session already ended.
    func post(_ event: WebAuthEvent) {
        let webview: WebviewHandle?? = state.withLock { $0.outcome == nil ? .some($0.webview) : .none }
        guard let webview else { return }
        channel.send(event, webview: webview, from: self)
    }
}
