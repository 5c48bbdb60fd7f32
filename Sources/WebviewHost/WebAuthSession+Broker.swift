import Foundation
import Logging
import Synchronization

extension WebAuthSession {
    /// Hands the session from the provider of `generation` to a registered broker for `url`'s
    /// scheme: the broker's session is made, prepared and presented with `url`; the previous
    /// provider session is dismissed on a later main-loop turn. False when no broker takes it.
    @MainActor
    func switchToBroker(_ url: URL, from generation: Int) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        let current = state.withLock { state -> (request: WebAuthRequest, provider: (any WebviewProvider)?)? in
            guard !state.isFinished, let presentation = state.presentation, presentation.generation == generation else { return nil }
            return (presentation.request, presentation.provider)
        }
        guard let current,
            let broker = store.providers.first(where: { candidate in
                candidate.id != current.provider?.id && candidate.brokerSchemes.contains { $0.lowercased() == scheme }
                    && candidate.availability(in: environment).isAvailable
            })
        else { return false }
        let brokerSession: any WebviewProviderSession
        do {
            brokerSession = try broker.makeSession(
                for: current.request, reporter: WebAuthSessionReporter(session: self, generation: generation + 1))
        } catch {
            Self.logger.debug("broker refused the session", metadata: ["broker": "\(broker.id)"])
            return false
        }
        guard replaceProvider(from: generation, with: broker, session: brokerSession) else { return false }
        Self.logger.debug("switched to broker", metadata: ["broker": "\(broker.id)"])
        Task { @MainActor in
            do {
                _ = try await brokerSession.prepare()
                guard self.isCurrentProvider(generation + 1), !self.isFinished else { return }
                try brokerSession.present(authorizationURL: url)
            } catch {
                if self.isCurrentProvider(generation + 1) { self.finish(.failure(Self.webAuthError(error))) }
            }
        }
        return true
    }
}

extension WebAuthSession {
    /// Makes `session` (of `provider`) the one presenting, in place of the provider of
    /// `generation`, when that one still is and the session has no outcome; `update` changes the
    /// rest of the state under the same lock. The replaced session is dismissed on a later
    /// main-loop turn. Returns false, dismissing `session` instead, when it came too late.
    func replaceProvider(
        from generation: Int, with provider: any WebviewProvider, session: any WebviewProviderSession,
        update: (inout State) -> Void = { _ in }
    ) -> Bool {
        let replaced = state.withLock { state -> (any WebviewProviderSession)?? in
            guard !state.isFinished, var presentation = state.presentation, presentation.generation == generation else { return .none }
            let previous = presentation.providerSession
            presentation.generation = generation + 1
            presentation.provider = provider
            presentation.providerSession = session
            presentation.webview = nil
            state.presentation = presentation
            update(&state)
            return .some(previous)
        }
        guard let replaced else {
            scheduleDismiss(session)
            return false
        }
        if let replaced { scheduleDismiss(replaced) }
        return true
    }
}
