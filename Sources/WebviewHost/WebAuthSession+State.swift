import Foundation

extension WebAuthSession {
    /// Where a session is. Each step holds what only it has: the caller waiting in
    /// ``prepare()`` only while preparing, the expected `state` and the caller waiting for the
    /// outcome only while presenting, the outcome only once finished.
    enum State {
        /// Made; neither ``prepare()`` nor ``handOverToBroker(at:_:)`` was called.
        case created
        /// In ``prepare()``: the provider is chosen, made, and gets ready.
        case preparing(Preparing)
        /// ``prepare()`` returned; ``start(authorizationURL:expectedState:handOver:)`` was not called.
        case prepared(Presentation)
        /// Presented (or run by a token broker), until the outcome.
        case presenting(Presenting)
        /// Ended, once. What presented it stays readable: ``provider``, and the redirect URIs an
        /// earlier provider's view still recognises (and refuses).
        case finished(Finished)
    }

    /// The provider presenting the session now, and what it presents.
    struct Presentation {
        var provider: any WebviewProvider
        /// `nil` while `provider` makes it.
        var providerSession: (any WebviewProviderSession)?
        var request: WebAuthRequest
        /// The generation of the reporter whose provider presents the session now.
        var generation = 0
        /// The redirect URI the authorization request carries, once the provider is ready.
        var redirectURI: RedirectURI?
        /// The redirect URI each generation's provider ends at (a hand-over to the browser gets
        /// its own), so an earlier provider's view still recognises, and refuses, its own.
        var redirectsByGeneration: [Int: RedirectURI] = [:]
        var webview: WebviewHandle?
    }

    struct Preparing {
        /// Set once the provider is chosen and the slot claimed.
        var presentation: Presentation?
        /// The caller waiting in ``prepare()`` for the provider to get ready.
        var waiting: CheckedContinuation<Result<URL, WebAuthError>, Never>?
    }

    struct Presenting {
        /// `nil` for a token broker (``handOverToBroker(at:_:)``), which presents nothing.
        var presentation: Presentation?
        /// The authorization request the session waits for the answer to: its `state` is the one
        /// the callback must carry (checked once, in ``WebAuthResponse``). A hand-over to the
        /// browser replaces it with the browser's request.
        var awaited: AuthorizationRequestURL?
        /// Makes the new authorization request a hand-over to the person's browser needs.
        var handOverBuilder: AuthorizationRequestBuilder?
        /// Whether the session was handed over to the person's browser already (once at most).
        var handedOver = false
        /// Closes what shows a sign-in on another device (its code), when there is no provider
        /// session to dismiss (``WebAuthSession/signInOnAnotherDevice(_:)``).
        var whenEnded: (@MainActor @Sendable () -> Void)?
        /// The caller waiting for the outcome.
        var waiting: CheckedContinuation<Outcome, Never>?
    }

    struct Finished {
        var outcome: Outcome
        var presentation: Presentation?
        /// For a response at the redirect URI: the request it answers (whose `state` it carried).
        var answered: AuthorizationRequestURL?
    }
}

extension WebAuthSession.State {
    var outcome: WebAuthSession.Outcome? {
        if case .finished(let finished) = self { return finished.outcome }
        return nil
    }

    var isFinished: Bool { outcome != nil }

    /// The provider's part, in any step that has one (a finished session's included). Setting it
    /// in ``created`` does nothing.
    var presentation: WebAuthSession.Presentation? {
        get {
            switch self {
            case .created: nil
            case .preparing(let preparing): preparing.presentation
            case .prepared(let presentation): presentation
            case .presenting(let presenting): presenting.presentation
            case .finished(let finished): finished.presentation
            }
        }
        set {
            switch self {
            case .created:
                break
            case .preparing(var preparing):
                preparing.presentation = newValue
                self = .preparing(preparing)
            case .prepared(let presentation):
                self = .prepared(newValue ?? presentation)
            case .presenting(var presenting):
                presenting.presentation = newValue
                self = .presenting(presenting)
            case .finished(var finished):
                finished.presentation = newValue
                self = .finished(finished)
            }
        }
    }

    /// The generation of the provider presenting now; 0 before there is one.
    var generation: Int { presentation?.generation ?? 0 }

    /// Ends the session with `outcome`, keeping the presentation; returns the state it ended
    /// (with the waiting callers to resume), or `nil` when it had ended already.
    mutating func finish(with outcome: WebAuthSession.Outcome, answering request: AuthorizationRequestURL? = nil) -> Self? {
        guard !isFinished else { return nil }
        let ended = self
        self = .finished(WebAuthSession.Finished(outcome: outcome, presentation: presentation, answered: request))
        return ended
    }

    /// Makes `continuation` the caller waiting for the outcome while presenting; returns the
    /// outcome instead when the session has one (the continuation is then not kept).
    mutating func wait(for continuation: CheckedContinuation<WebAuthSession.Outcome, Never>) -> WebAuthSession.Outcome? {
        switch self {
        case .presenting(var presenting):
            presenting.waiting = continuation
            self = .presenting(presenting)
            return nil
        case .finished(let finished):
            return finished.outcome
        case .created, .preparing, .prepared:
            assertionFailure("a caller waits for the outcome of a session that is not presenting")
            return .failure(.canceled())
        }
    }
}
