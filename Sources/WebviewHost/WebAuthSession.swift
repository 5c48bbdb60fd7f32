public import Foundation
import Logging
import Synchronization

/// One sign-in through a web user agent, OAuth-agnostic: the app builds the authorization URL,
/// the session returns what came back to the redirect URI (ASWebAuthenticationSession's role).
///
/// ```swift
/// let session = WebAuthSession(redirectURI: redirect, parameters: .init(webviewType: .default))
/// let realRedirect = try await session.prepare()          // may carry a loopback port now
/// let response = try await session.start(authorizationURL: makeURL(realRedirect), expectedState: state)
/// ```
///
/// A session ends exactly once: with the response or with one ``WebAuthError``. One interactive
/// session runs per process; a second fails at once with `sessionAlreadyInProgress`.
/// ``cancel()`` works from any thread. Progress is posted as `webAuth*` notifications on the
/// main thread (the session is the notification's object) and delivered on ``events``.
public final class WebAuthSession: Sendable {
    /// The redirect URI the app asked for.
    public let requestedRedirectURI: URL
    public let parameters: WebviewParameters
    /// The session's steps; finishes after the terminal event.
    public let events: AsyncStream<WebAuthEvent>

    private let eventSink: AsyncStream<WebAuthEvent>.Continuation
    private let environment: WebviewEnvironment
    private let store: ProviderStore
    private let state = Mutex(State())
    private static let logger = Logger(label: "WebviewHost.session")

    private struct State {
        var phase = Phase.created
        var outcome: Result<WebAuthResponse, WebAuthError>?
        var continuation: CheckedContinuation<Result<WebAuthResponse, WebAuthError>, Never>?
        var provider: (any WebviewProvider)?
        var providerSession: (any WebviewProviderSession)?
        var redirectURI: RedirectURI?
        var expectedState: String?
        var timeout: Task<Void, Never>?
        var webview: WebviewHandle?
        var holdsSlot = false
        var request: WebAuthRequest?
        /// The generation of the reporter whose provider presents the session now.
        var providerGeneration = 0
    }

    private enum Phase { case created, preparing, prepared, presenting }

    /// - Parameters:
    ///   - redirectURI: where the sign-in ends (`http://127.0.0.1/callback`, `com.example.app:/oauth2redirect`...).
    ///   - parameters: how to present it.
    ///   - environment: where the app runs (injected by tests); the policy chooses from it.
    public init(redirectURI: URL, parameters: WebviewParameters = .init(), environment: WebviewEnvironment = .current) {
        requestedRedirectURI = redirectURI
        self.parameters = parameters
        self.environment = environment
        store = ProviderStore.current
        (events, eventSink) = AsyncStream.makeStream(of: WebAuthEvent.self)
    }

    deinit {
        // Abandoned after prepare() without start() or cancel(): free the slot and tear down.
        let leftover = state.withLock { state -> (any WebviewProviderSession)? in
            guard state.outcome == nil else { return nil }
            state.timeout?.cancel()
            return state.providerSession
        }
        store.slot.release(from: ObjectIdentifier(self))
        eventSink.finish()
        if let leftover {
            DispatchQueue.main.async { MainActor.assumeIsolated { leftover.dismiss() } }
        }
    }

    /// The provider that runs this session, once ``prepare()`` chose it.
    public var provider: (any WebviewProvider)? { state.withLock { $0.provider } }

    /// Phase one: chooses the provider, claims the one-session slot, and lets the provider get
    /// ready. Returns the redirect URI the authorization request must carry (a loopback
    /// provider may have added the port it bound).
    ///
    /// - Throws: `sessionAlreadyInProgress`, `providerUnavailable`, `invalidParameters`,
    ///   `redirectListenerFailed`, or `canceled` if ``cancel()`` came first.
    @MainActor
    public func prepare() async throws(WebAuthError) -> URL {
        let ready: Bool = state.withLock {
            guard $0.outcome == nil, $0.phase == .created else { return false }
            $0.phase = .preparing
            return true
        }
        guard ready else {
            throw terminalError() ?? WebAuthError(.invalidParameters, "prepare() was already called on this session.")
        }
        do {
            let redirect = try RedirectURI(requestedRedirectURI)
            let provider = try store.selectionPolicy.selectProvider(
                for: parameters, among: store.providers, in: environment)
            guard store.slot.claim(for: ObjectIdentifier(self)) else { throw WebAuthError.sessionAlreadyInProgress() }
            state.withLock {
                $0.holdsSlot = true
                $0.provider = provider
            }
            Self.logger.debug("session prepared", metadata: ["provider": "\(provider.id)"])
            let request = WebAuthRequest(redirectURI: redirect, parameters: parameters, environment: environment)
            state.withLock { $0.request = request }
            let session = try provider.makeSession(for: request, reporter: WebAuthSessionReporter(session: self, generation: 0))
            let stillRunning = state.withLock {
                $0.providerSession = session
                return $0.outcome == nil
            }
            // Cancelled while the provider was being made: dismiss now, it was not there to be dismissed.
            if !stillRunning { scheduleDismiss(session, resuming: nil, with: nil) }
            let prepared = try RedirectURI(try await session.prepare())
            let ok = state.withLock {
                guard $0.outcome == nil else { return false }
                $0.redirectURI = prepared
                $0.phase = .prepared
                return true
            }
            guard ok else { throw terminalError() ?? .canceled() }
            return prepared.url
        } catch {
            let failure = Self.webAuthError(error)
            finish(.failure(failure))
            throw terminalError() ?? failure
        }
    }

    /// Phase two: presents `authorizationURL` and waits for the one outcome.
    ///
    /// - Parameter expectedState: the `state` sent; a callback without it is `stateMismatch`.
    /// - Throws: any ``WebAuthError``; `.server` when the callback carries an OAuth error.
    @MainActor
    public func start(authorizationURL: URL, expectedState: String? = nil) async throws(WebAuthError) -> WebAuthResponse {
        let session: (any WebviewProviderSession)? = state.withLock {
            guard $0.outcome == nil, $0.phase == .prepared else { return nil }
            $0.phase = .presenting
            $0.expectedState = expectedState
            return $0.providerSession
        }
        guard let session else {
            throw terminalError()
                ?? WebAuthError(.invalidParameters, "start(authorizationURL:) needs a prepared session that has not started yet; call prepare() once first.")
        }
        armTimeout()
        let result = await withCheckedContinuation { continuation in
            let earlyOutcome = state.withLock { state in
                if state.outcome == nil { state.continuation = continuation }
                return state.outcome
            }
            if let earlyOutcome {
                continuation.resume(returning: earlyOutcome)
                return
            }
            do {
                try session.present(authorizationURL: authorizationURL)
            } catch {
                finish(.failure(Self.webAuthError(error)))
            }
        }
        return try result.get()
    }

    /// ``prepare()`` then ``start(authorizationURL:expectedState:)``, with the authorization URL
    /// built from the prepared redirect URI.
    @MainActor
    public func authenticate(
        expectedState: String? = nil,
        authorizationURL makeAuthorizationURL: (_ redirectURI: URL) throws -> URL
    ) async throws(WebAuthError) -> WebAuthResponse {
        let redirect = try await prepare()
        let url: URL
        do {
            url = try makeAuthorizationURL(redirect)
        } catch {
            let failure = Self.webAuthError(error)
            finish(.failure(failure))
            throw failure
        }
        return try await start(authorizationURL: url, expectedState: expectedState)
    }

    /// ``authenticate(expectedState:authorizationURL:)`` with a completion handler, called once on the main thread.
    public func authenticate(
        expectedState: String? = nil,
        authorizationURL makeAuthorizationURL: @escaping @Sendable (_ redirectURI: URL) throws -> URL,
        completion: @escaping @MainActor @Sendable (Result<WebAuthResponse, WebAuthError>) -> Void
    ) {
        callBack(completion) { () async throws(WebAuthError) in try await self.authenticate(expectedState: expectedState, authorizationURL: makeAuthorizationURL) }
    }

    /// ``prepare()`` with a completion handler, called once on the main thread.
    public func prepare(completion: @escaping @MainActor @Sendable (Result<URL, WebAuthError>) -> Void) {
        callBack(completion) { () async throws(WebAuthError) in try await self.prepare() }
    }

    /// ``start(authorizationURL:expectedState:)`` with a completion handler, called once on the main thread.
    public func start(
        authorizationURL: URL, expectedState: String? = nil,
        completion: @escaping @MainActor @Sendable (Result<WebAuthResponse, WebAuthError>) -> Void
    ) {
        callBack(completion) { () async throws(WebAuthError) in try await self.start(authorizationURL: authorizationURL, expectedState: expectedState) }
    }

    /// Ends the session with `canceled`, from any thread. Has no effect once the session ended.
    public func cancel() {
        finish(.failure(.canceled()))
    }

    // MARK: - Reports from the provider (through WebAuthSessionReporter)

    var preparedRedirectURI: RedirectURI? { state.withLock { $0.redirectURI } }
    var isFinished: Bool { state.withLock { $0.outcome != nil } }
    var failure: WebAuthError? { terminalError() }

    /// The broker schemes of the providers this session can reach.
    var brokerSchemes: Set<String> {
        Set(store.providers.flatMap { $0.brokerSchemes.map { $0.lowercased() } })
    }

    func isCurrentProvider(_ generation: Int) -> Bool {
        state.withLock { $0.providerGeneration == generation }
    }

    /// Hands the session from the provider of `generation` to a registered broker for `url`'s
    /// scheme: the broker's session is made, prepared and presented with `url`; the previous
    /// provider session is dismissed on a later main-loop turn.
    @MainActor
    func switchToBroker(_ url: URL, from generation: Int) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        let current = state.withLock { state -> (request: WebAuthRequest, provider: (any WebviewProvider)?)? in
            guard state.outcome == nil, state.providerGeneration == generation, let request = state.request else { return nil }
            return (request, state.provider)
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
        let replaced = state.withLock { state -> (any WebviewProviderSession)?? in
            guard state.outcome == nil, state.providerGeneration == generation else { return .none }
            let previous = state.providerSession
            state.providerGeneration = generation + 1
            state.provider = broker
            state.providerSession = brokerSession
            state.webview = nil
            return .some(previous)
        }
        guard let replaced else {
            scheduleDismiss(brokerSession, resuming: nil, with: nil)
            return false
        }
        Self.logger.debug("switched to broker", metadata: ["broker": "\(broker.id)"])
        if let replaced { scheduleDismiss(replaced, resuming: nil, with: nil) }
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

    func setWebview(_ webview: WebviewHandle?) {
        state.withLock { $0.webview = webview }
    }

    func redirectReached(_ callback: String) {
        let expectedState: String?? = state.withLock { $0.outcome == nil ? .some($0.expectedState) : .none }
        guard let expectedState else { return }
        do {
            finish(.success(try WebAuthResponse(callbackString: callback, expectedState: expectedState)))
        } catch {
            finish(.failure(error))
        }
    }

    /// Posts a non-terminal event, unless the session already ended.
    func post(_ event: WebAuthEvent) {
        let webview: WebviewHandle?? = state.withLock { $0.outcome == nil ? .some($0.webview) : .none }
        guard let webview else { return }
        onMain { self.deliver(event, webview: webview) }
    }

    /// Decides the outcome; the first call wins, later ones return false and do nothing.
    @discardableResult
    func finish(_ outcome: Result<WebAuthResponse, WebAuthError>) -> Bool {
        let taken = state.withLock { state -> (CheckedContinuation<Result<WebAuthResponse, WebAuthError>, Never>?, (any WebviewProviderSession)?, WebviewHandle?, Bool)? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            state.timeout?.cancel()
            state.timeout = nil
            let continuation = state.continuation
            state.continuation = nil
            return (continuation, state.providerSession, state.webview, state.holdsSlot)
        }
        guard let (continuation, providerSession, webview, holdsSlot) = taken else { return false }
        if holdsSlot { store.slot.release(from: ObjectIdentifier(self)) }
        switch outcome {
        case .success(let response):
            Self.logger.debug("session completed")
            onMain { self.deliver(.didComplete(response.callbackURL), webview: webview) }
        case .failure(let error):
            Self.logger.debug("session failed", metadata: ["code": "\(error.code)"])
            onMain { self.deliver(.didFail(error), webview: webview) }
        }
        if let providerSession {
            scheduleDismiss(providerSession, resuming: continuation, with: outcome)
        } else if let continuation {
            DispatchQueue.main.async { continuation.resume(returning: outcome) }
        }
        return true
    }

    // MARK: - Private

    /// Runs `operation` on the main actor and hands its result to `completion`, once.
    private func callBack<Value: Sendable>(
        _ completion: @escaping @MainActor @Sendable (Result<Value, WebAuthError>) -> Void,
        _ operation: @escaping @MainActor @Sendable () async throws(WebAuthError) -> Value
    ) {
        Task { @MainActor in
            do throws(WebAuthError) {
                completion(.success(try await operation()))
            } catch {
                completion(.failure(error))
            }
        }
    }

    private func terminalError() -> WebAuthError? {
        if case .failure(let error) = state.withLock({ $0.outcome }) { return error }
        return nil
    }

    private func armTimeout() {
        let provider = state.withLock { $0.provider }
        guard let timeout = parameters.timeout ?? provider?.defaultTimeout else { return }
        let task = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            self?.finish(.failure(.timedOut(after: timeout)))
        }
        let keep = state.withLock { state -> Bool in
            guard state.outcome == nil else { return false }
            state.timeout = task
            return true
        }
        if !keep { task.cancel() }
    }

    /// Dismisses on a later turn of the main loop (never inside the provider's own callback),
    /// then resumes the waiting caller, so the caller sees a torn-down provider.
    private func scheduleDismiss(
        _ session: any WebviewProviderSession,
        resuming continuation: CheckedContinuation<Result<WebAuthResponse, WebAuthError>, Never>?,
        with outcome: Result<WebAuthResponse, WebAuthError>?
    ) {
        DispatchQueue.main.async {
            MainActor.assumeIsolated { session.dismiss() }
            if let continuation, let outcome { continuation.resume(returning: outcome) }
        }
    }

    private func deliver(_ event: WebAuthEvent, webview: WebviewHandle?) {
        var userInfo: [String: Any] = [:]
        switch event {
        case .didStartLoad(let url), .didFinishLoad(let url), .willSwitchToBrokerApp(let url), .didComplete(let url):
            userInfo[WebAuthNotificationKey.url] = url
        case .didFail(let error):
            userInfo[WebAuthNotificationKey.error] = error
            if let url = error.url { userInfo[WebAuthNotificationKey.url] = url }
        }
        if let webview { userInfo[WebAuthNotificationKey.webview] = webview }
        NotificationCenter.default.post(name: event.notificationName, object: self, userInfo: userInfo)
        eventSink.yield(event)
        if event.isTerminal { eventSink.finish() }
    }

    private func onMain(_ work: @escaping @Sendable () -> Void) {
        if MainContext.isCurrent {
            work()
        } else {
            DispatchQueue.main.async(execute: work)
        }
    }

    private static func webAuthError(_ error: any Error) -> WebAuthError {
        if let error = error as? WebAuthError { return error }
        return WebAuthError(
            .invalidParameters, "The sign-in could not start: \(error)",
            underlyingError: error)
    }
}
