import Foundation
import Logging
import Synchronization

/// Moving a sign-in from an embedded view to the person's browser, inside the same session.
extension WebAuthSession {
    /// Moves the sign-in from the embedded view (the library's window or the app's own view) to
    /// the person's browser, as the person's "Continue in your browser" button does: the app's
    /// way to offer it next to its own view. The session goes on with a new authorization request
    /// from the ``AuthorizationRequestBuilder`` given to ``start(authorizationURL:expectedState:handOver:)``
    /// (or ``authenticate(request:)``), and the caller's `await` ends with the browser's callback
    /// or one error. The ``SystemBrowserHandOverPolicy`` does not apply: the app asked.
    ///
    /// Returns `false`, changing nothing, when the session is not presenting in a view (not
    /// started, ended, already in the browser, or handed to a token broker). When it cannot move (no builder, no browser) the
    /// session ends with `systemBrowserRequired`.
    @MainActor
    @discardableResult
    public func continueInSystemBrowser() -> Bool {
        let generation = state.withLock { $0.generation }
        return handOverToSystemBrowser(
            SystemBrowserHandOver(reason: .appRequested, detail: "the app asked to continue in the browser"),
            from: generation)
    }

    /// Whether a hand-over to the browser would go ahead now (see
    /// ``WebAuthSessionReporter/canHandOverToSystemBrowser``).
    var canHandOverToSystemBrowser: Bool {
        guard parameters.systemBrowserHandOver != .never else { return false }
        let ready = state.withLock { state in
            guard case .presenting(let presenting) = state else { return false }
            return !presenting.handedOver && presenting.handOverBuilder != nil
                && presenting.presentation?.provider.kind != .systemBrowser
        }
        return ready && browserTarget() != nil && (try? handOverRedirectURI()) != nil
    }

    /// Hands the session from the provider of `generation` to the person's browser (see
    /// ``WebAuthSessionReporter/handOverToSystemBrowser(_:)``). True when the browser takes over.
    @MainActor
    func handOverToSystemBrowser(_ handOver: SystemBrowserHandOver, from generation: Int) -> Bool {
        let current = state.withLock { state -> (builder: AuthorizationRequestBuilder?, provider: (any WebviewProvider)?)? in
            guard case .presenting(let presenting) = state, state.generation == generation, !presenting.handedOver
            else { return nil }
            return (presenting.handOverBuilder, presenting.presentation?.provider)
        }
        // Only a provider that presents (a view) hands over: a token broker presents nothing.
        guard let current, let provider = current.provider, provider.kind != .systemBrowser else { return false }
        Self.logger.debug("hand-over to the browser asked", metadata: ["reason": "\(handOver.reason)"])
        func refuse(_ why: String) -> Bool {
            finish(.failure(.systemBrowserRequired(handOver, why: why)))
            return false
        }
        if parameters.systemBrowserHandOver == .never, handOver.reason != .appRequested {
            return refuse("the app's policy for this sign-in is never to move it to the browser.")
        }
        guard let builder = current.builder else {
            return refuse("the app gave no way to build a new authorization request for the browser.")
        }
        let redirect: RedirectURI
        do {
            redirect = try handOverRedirectURI()
        } catch {
            return refuse(error.message)
        }
        guard let browser = browserTarget() else {
            return refuse("no browser can be started here.")
        }
        var browserParameters = parameters
        browserParameters.customWebview = nil
        browserParameters.webviewType = .provider(browser.id)
        let browserRequest = WebAuthRequest(redirectURI: redirect, parameters: browserParameters, environment: environment)
        let next = generation + 1
        let browserSession: any WebviewProviderSession
        do {
            browserSession = try browser.makeSession(
                for: browserRequest, reporter: WebAuthSessionReporter(session: self, generation: next))
        } catch {
            return refuse("the browser could not take the sign-in (\(Self.webAuthError(error).message))")
        }
        // In order: the view's steps, this, then the browser's own.
        post(.willSwitchToSystemBrowser(handOver))
        let replaced = replaceProvider(from: generation, with: browser, session: browserSession) { state in
            state.presentation?.request = browserRequest
            guard case .presenting(var presenting) = state else { return }
            presenting.handedOver = true
            state = .presenting(presenting)
        }
        guard replaced else { return false }
        Self.logger.info("sign-in handed over to the browser", metadata: ["reason": "\(handOver.reason)", "browser": "\(browser.id)"])
        if parameters.timeout == nil, let timeout = browser.defaultTimeout {
            armDeadline(timeout)
        }
        Task { @MainActor in
            do {
                let prepared = try RedirectURI(try await browserSession.prepare())
                guard self.isCurrentProvider(next), !self.isFinished else { return }
                let request = try builder(prepared.url)
                let ready = self.state.withLock { state in
                    guard case .presenting(var presenting) = state, var presentation = presenting.presentation,
                        presentation.generation == next
                    else { return false }
                    presentation.redirectURI = prepared
                    presentation.redirectsByGeneration[next] = prepared
                    presenting.presentation = presentation
                    presenting.awaited = request
                    state = .presenting(presenting)
                    return true
                }
                guard ready else { return }
                try browserSession.present(authorizationURL: request.url)
            } catch {
                if self.isCurrentProvider(next) { self.finish(.failure(Self.webAuthError(error))) }
            }
        }
        return true
    }

    /// The highest-priority registered, available system-browser provider.
    private func browserTarget() -> (any WebviewProvider)? {
        store.providers
            .filter { $0.kind == .systemBrowser && $0.availability(in: environment).isAvailable }
            .max { $0.priority < $1.priority }
    }

    /// The redirect URI the browser's request uses: the app's choice, else the session's own when
    /// a browser can deliver to it (loopback http, or an app's scheme). Each was parsed once:
    /// the app's choice when the session was made, the session's own when it was prepared.
    private func handOverRedirectURI() throws(WebAuthError) -> RedirectURI {
        let redirect: RedirectURI
        if let chosen = systemBrowserRedirect {
            redirect = try chosen.get()
        } else if let requested = state.withLock({ $0.presentation?.request.redirectURI }) {
            redirect = requested
        } else {
            redirect = try RedirectURI(requestedRedirectURI)
        }
        let scheme = redirect.url.scheme?.lowercased() ?? ""
        if scheme == "https" || (scheme == "http" && !redirect.isLoopback) {
            throw WebAuthError(
                .invalidParameters,
                "the redirect URI \(redirect) is one only a web view can intercept; set "
                    + "WebviewParameters.systemBrowserRedirectURI to a loopback or app-scheme URI registered for this app.")
        }
        return redirect
    }
}
