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
/// ``cancel()`` works from any thread, and cancelling the task that awaits ``prepare()``,
/// ``start(authorizationURL:expectedState:)`` or ``authenticate(expectedState:authorizationURL:)``
/// ends the session with `canceled`. Progress is posted as `webAuth*` notifications on the main
/// thread (the session is the notification's object), given to the main-actor handlers of
/// ``observe(_:)`` and ``observeAll(_:)``, and delivered on ``events``, in order, never
/// re-entrantly, with nothing after the terminal event.
public final class WebAuthSession: Sendable {
    /// The redirect URI the app asked for.
    public let requestedRedirectURI: URL
    public let parameters: WebviewParameters
    /// The session's steps; finishes after the terminal event. Asynchronous: a step arrives after
    /// the notifications and ``observe(_:)`` handlers had it, on a later turn of the task's executor.
    public var events: AsyncStream<WebAuthEvent> { channel.stream }

    let channel = SessionEventChannel()
    let environment: WebviewEnvironment
    let store: ProviderStore
    let state = Mutex(State.created)
    private let deadline = SessionDeadline()
    static let logger = Logger(label: "WebviewHost.session")

    typealias Outcome = Result<WebAuthResponse, WebAuthError>

    /// - Parameters:
    ///   - redirectURI: where the sign-in ends (`http://127.0.0.1/callback`, `com.example.app:/oauth2redirect`...).
    ///   - parameters: how to present it.
    ///   - environment: where the app runs (injected by tests); the policy chooses from it.
    public init(redirectURI: URL, parameters: WebviewParameters = .init(), environment: WebviewEnvironment = .current) {
        requestedRedirectURI = redirectURI
        self.parameters = parameters
        self.environment = environment
        store = ProviderStore.current
        throwsOAuthErrors = true
        systemBrowserRedirect = Self.parsed(parameters.systemBrowserRedirectURI)
    }

    /// A session whose end at the redirect URI is the response whatever it carries: a callback
    /// with an OAuth `error` is returned, not thrown (the GObject layer's `WvhWebAuthSession`,
    /// which hands the app the URL reached, as ASWebAuthenticationSession does).
    package init(redirectURI: URL, parameters: WebviewParameters, returningOAuthErrors: Void) {
        requestedRedirectURI = redirectURI
        self.parameters = parameters
        environment = .current
        store = ProviderStore.current
        throwsOAuthErrors = false
        systemBrowserRedirect = Self.parsed(parameters.systemBrowserRedirectURI)
    }

    /// `parameters.systemBrowserRedirectURI`, parsed once, when the app set one (see
    /// ``handOverToSystemBrowser(_:from:)``).
    let systemBrowserRedirect: Result<RedirectURI, WebAuthError>?

    private static func parsed(_ url: URL?) -> Result<RedirectURI, WebAuthError>? {
        url.map { url in Result { () throws(WebAuthError) in try RedirectURI(url) } }
    }

    /// Whether a callback carrying an OAuth `error` ends the session with `.server` (the Swift
    /// API's sessions) or is returned as the response.
    let throwsOAuthErrors: Bool

    deinit {
        // Abandoned after prepare() without start() or cancel(): free the slot and tear down.
        let leftover = state.withLock { state -> (any WebviewProviderSession)? in
            guard !state.isFinished else { return nil }
            return state.presentation?.providerSession
        }
        deadline.disarm()
        store.slot.release(from: ObjectIdentifier(self))
        if let leftover {
            DispatchQueue.main.async { MainActor.assumeIsolated { leftover.dismiss() } }
        }
    }

    /// The provider that runs this session, once ``prepare()`` chose it.
    public var provider: (any WebviewProvider)? { state.withLock { $0.presentation?.provider } }

    /// Phase one: chooses the provider, claims the one-session slot, and lets the provider get
    /// ready. Returns the redirect URI the authorization request must carry (a loopback
    /// provider may have added the port it bound). The session's timeout counts from here.
    ///
    /// - Throws: `sessionAlreadyInProgress`, `providerUnavailable`, `invalidParameters`,
    ///   `redirectListenerFailed`, or `canceled` if ``cancel()`` (or the task's cancellation) came first.
    @MainActor
    public func prepare() async throws(WebAuthError) -> URL {
        let ready: Bool = state.withLock {
            guard case .created = $0 else { return false }
            $0 = .preparing(Preparing())
            return true
        }
        guard ready else {
            throw terminalError() ?? WebAuthError(.invalidParameters, "prepare() was already called on this session.")
        }
        do throws(WebAuthError) {
            let session = try makeProviderSession()
            armTimeout()
            let prepared = try await untilOutcome { try await session.prepare() }
            let redirect = try RedirectURI(prepared)
            let ok = state.withLock {
                guard case .preparing(let preparing) = $0, var presentation = preparing.presentation else { return false }
                presentation.redirectURI = redirect
                presentation.redirectsByGeneration[presentation.generation] = redirect
                $0 = .prepared(presentation)
                return true
            }
            guard ok else { throw terminalError() ?? .canceled() }
            return redirect.url
        } catch {
            finish(.failure(error))
            throw terminalError() ?? error
        }
    }

    /// Phase two: presents `authorizationURL` and waits for the one outcome.
    ///
    /// - Parameter expectedState: the `state` sent; a callback without it is `stateMismatch`.
    /// - Throws: any ``WebAuthError``; `.server` when the callback carries an OAuth error;
    ///   `canceled` when the awaiting task is cancelled.
    /// - Parameter handOver: builds a new authorization request when the sign-in moves from an
    ///   embedded view to the person's browser (see ``SystemBrowserHandOver``); without one, such
    ///   a move ends the session with `systemBrowserRequired`.
    @MainActor
    public func start(
        authorizationURL: URL, expectedState: String? = nil, handOver: AuthorizationRequestBuilder? = nil
    ) async throws(WebAuthError) -> WebAuthResponse {
        let session: (any WebviewProviderSession)? = state.withLock {
            guard case .prepared(let presentation) = $0, let session = presentation.providerSession else { return nil }
            $0 = .presenting(
                Presenting(
                    presentation: presentation, awaited: AuthorizationRequestURL(authorizationURL, state: expectedState),
                    handOverBuilder: handOver))
            return session
        }
        guard let session else {
            throw terminalError()
                ?? WebAuthError(.invalidParameters, "start(authorizationURL:) needs a prepared session that has not started yet; call prepare() once first.")
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let earlyOutcome = state.withLock { $0.wait(for: continuation) }
                if let earlyOutcome {
                    continuation.resume(returning: earlyOutcome)
                    return
                }
                do {
                    try session.present(authorizationURL: authorizationURL)
                    if let redirect = preparedRedirectURI { Self.warmUpCallbackReading(redirect) }
                } catch {
                    finish(.failure(Self.webAuthError(error)))
                }
            }
        } onCancel: {
            self.cancel()
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
            throw terminalError() ?? failure
        }
        return try await start(authorizationURL: url, expectedState: expectedState)
    }

    /// ``prepare()`` then ``start(authorizationURL:expectedState:handOver:)``, with a fresh
    /// authorization request from `makeRequest` for each redirect URI: the prepared one, and the
    /// one the person's browser delivers to if the sign-in is handed over (see
    /// ``SystemBrowserHandOver``). The response's `state` and callback URL tell which request it answers.
    @MainActor
    public func authenticate(request makeRequest: @escaping AuthorizationRequestBuilder) async throws(WebAuthError) -> WebAuthResponse {
        let redirect = try await prepare()
        let first: AuthorizationRequestURL
        do {
            first = try makeRequest(redirect)
        } catch {
            let failure = Self.webAuthError(error)
            finish(.failure(failure))
            throw terminalError() ?? failure
        }
        return try await start(authorizationURL: first.url, expectedState: first.state, handOver: makeRequest)
    }

    /// ``authenticate(request:)``, with the request the response answers: the one whose `state`
    /// the session checked the callback against (the first, or the browser's after a hand-over).
    /// `nil` only if the session ended with a response that was not read at the redirect URI.
    @MainActor
    package func authenticateAnswering(
        request makeRequest: @escaping AuthorizationRequestBuilder
    ) async throws(WebAuthError) -> (response: WebAuthResponse, request: AuthorizationRequestURL?) {
        let response = try await authenticate(request: makeRequest)
        return (response, answeredRequest)
    }

    /// Ends the session with `canceled`, from any thread. Has no effect once the session ended.
    public func cancel() {
        finish(.failure(.canceled()))
    }

    // MARK: - The outcome

    /// Decides the outcome; the first call wins, later ones return false and do nothing.
    ///
    /// The one owner of a session's end (as AppAuth's user-agent sessions have it): the slot is
    /// freed and the terminal event sent; then, on a later turn of the main loop (never inside the
    /// provider's own callback), the provider session is dismissed, exactly once, and only then is
    /// the waiting caller resumed. So whichever way the session ended (the provider's report, a
    /// cancel, the timeout, the task's cancellation), the caller finds the provider's UI out of
    /// sight, the slot free and the reporter silent. A provider hides what it shows in `dismiss()`
    /// and defers its heavy destruction (a window's, a view's) to when the main loop is idle.
    @discardableResult
    func finish(_ outcome: Outcome, answering request: AuthorizationRequestURL? = nil) -> Bool {
        guard let ended = state.withLock({ $0.finish(with: outcome, answering: request) }) else { return false }
        deadline.disarm()
        store.slot.release(from: ObjectIdentifier(self))
        let webview = ended.presentation?.webview
        switch outcome {
        case .success(let response):
            Self.logger.debug("session completed")
            channel.send(.didComplete(response.callbackURL), webview: webview, from: self)
        case .failure(let error):
            Self.logger.debug("session failed", metadata: ["code": "\(error.code)"])
            channel.send(.didFail(error), webview: webview, from: self)
        }
        let preparing: CheckedContinuation<Result<URL, WebAuthError>, Never>? =
            if case .preparing(let step) = ended { step.waiting } else { nil }
        let waiting: CheckedContinuation<Outcome, Never>? = if case .presenting(let step) = ended { step.waiting } else { nil }
        let resume: @Sendable () -> Void = {
            if let preparing {
                let failure: WebAuthError = if case .failure(let error) = outcome { error } else { .canceled() }
                preparing.resume(returning: .failure(failure))
            }
            waiting?.resume(returning: outcome)
        }
        let whenEnded: (@MainActor @Sendable () -> Void)? = if case .presenting(let step) = ended { step.whenEnded } else { nil }
        if let providerSession = ended.presentation?.providerSession {
            scheduleDismiss(providerSession, then: resume)
        } else if let whenEnded {
            // What showed a code on another device's behalf closes before the caller resumes.
            DispatchQueue.main.async {
                MainActor.assumeIsolated { whenEnded() }
                resume()
            }
        } else {
            DispatchQueue.main.async(execute: resume)
        }
        return true
    }

    /// Dismisses on a later turn of the main loop (never inside the provider's own callback),
    /// then runs `then`, so a resumed caller sees a torn-down provider.
    func scheduleDismiss(_ session: any WebviewProviderSession, then: (@Sendable () -> Void)? = nil) {
        DispatchQueue.main.async {
            MainActor.assumeIsolated { session.dismiss() }
            then?()
        }
    }

    func terminalError() -> WebAuthError? {
        if case .failure(let error) = state.withLock({ $0.outcome }) { return error }
        return nil
    }

    static func webAuthError(_ error: any Error) -> WebAuthError {
        if let error = error as? WebAuthError { return error }
        return WebAuthError(
            .invalidParameters, "The sign-in could not start: \(error)",
            underlyingError: error)
    }

    func armTimeout() {
        let provider = state.withLock { $0.presentation?.provider }
        guard let timeout = parameters.timeout ?? provider?.defaultTimeout else { return }
        armDeadline(timeout)
    }

    /// Ends the session with `timedOut` (or `error`) once `timeout` has elapsed from now
    /// (replacing an earlier count).
    func armDeadline(_ timeout: Duration, failing error: WebAuthError? = nil) {
        deadline.arm(timeout) { [weak self] in self?.finish(.failure(error ?? .timedOut(after: timeout))) }
        if state.withLock({ $0.isFinished }) { deadline.disarm() }
    }
}
