import Foundation
public import WebviewHost
import Synchronization

/// Signs people in to an OpenID Connect provider and keeps their tokens, as MSAL's
/// `MSALPublicClientApplication` does: authorization code with PKCE through a web user agent
/// chosen by ``WebviewHost/WebviewProviderRegistry``, ID tokens verified, tokens cached in MSAL's
/// unified cache format in a ``TokenCacheStorage`` (the Secret Service unless the configuration
/// chooses another), so that a person stays signed in across restarts.
///
/// ```swift
/// let app = try PublicClientApplication(configuration: .init(
///     clientID: "my-app", authority: URL(string: "https://login.example.com")!,
///     redirectURI: URL(string: "http://127.0.0.1/callback")!))
/// let result = try await app.acquireToken(with: .init(scopes: ["api.read"]))
/// let later = try await app.acquireTokenSilent(with: .init(scopes: ["api.read"], account: result.account))
/// ```
public final class PublicClientApplication: Sendable {
    public let configuration: PublicClientApplicationConfiguration
    let authority: Authority
    let cache: TokenCache
    /// The token endpoint's grants (see TokenExchange.swift).
    let exchange: TokenExchange
    /// The interactive calls in progress (see InteractionHandle.swift).
    let interactions = Interactions()
    /// The refresh running for each account and scope set: concurrent silent calls wait for it
    /// instead of each spending the refresh token.
    private let refreshes = SingleFlight<Result<AuthenticationResult, WebAuthError>>()
    /// The token brokers' registry as it was when the app was made (see PublicClientApplication+Broker.swift).
    let brokerSelection = TokenBrokerSelection()

    /// - Throws: `invalidParameters` for an empty client ID, an authority that is neither https
    ///   nor loopback http, a malformed redirect URI, or an `http` redirect URI whose host is not
    ///   a loopback address (`127.0.0.0/8`, `[::1]`, `localhost`; parsed as addresses, so
    ///   `http://127.evil.example/` is refused). The token store is not contacted here.
    public init(configuration: PublicClientApplicationConfiguration) throws(WebAuthError) {
        try configuration.check()
        self.configuration = configuration
        let storage = try configuration.makeTokenCacheStorage()
        let authority = Authority(issuerURL: configuration.authority, connection: ProviderConnection(timeout: configuration.networkTimeout, proxy: configuration.networkProxy))
        self.authority = authority
        cache = TokenCache(
            storage: storage, scope: .init(clientID: configuration.clientID, authority: configuration.authority),
            discoveredTokenEndpoint: { await authority.discoveredTokenEndpoint })
        exchange = TokenExchange(authority: authority, configuration: configuration)
    }

    // MARK: - Interactive

    /// Signs the person in through a web user agent and returns verified tokens. Its steps reach
    /// the parameters' ``InteractiveTokenParameters/onStep`` (this call's own, and nothing of any
    /// other call), then `WebAuthSession.observeAll(_:)` handlers on the main actor and the
    /// `webAuth*` notifications (those of every session in the process).
    ///
    /// - Throws: a ``WebviewHost/WebAuthError``: `canceled`/`userCanceled`, `server` with the
    ///   provider's `error` and `error_description` (from the callback or the token endpoint),
    ///   `invalidResponse` for an ID token that fails a check (its ``IDTokenValidationError`` is
    ///   the `underlyingError`), `network`, `providerUnavailable` (no web user agent, or the
    ///   token cache's store could not be opened and
    ///   ``PublicClientApplicationConfiguration/tokenCacheUnavailable`` said
    ///   ``TokenCacheUnavailableDecision/stop``: its ``TokenCacheStorageError`` is the
    ///   `underlyingError`), `sessionAlreadyInProgress`... A store that fails after the person
    ///   signed in never loses the tokens: see ``AuthenticationResult/tokenCacheError``.
    @MainActor
    public func acquireToken(with parameters: InteractiveTokenParameters) async throws(WebAuthError) -> AuthenticationResult {
        // A proxy's password asked during discovery goes over the app's window (no sign-in window yet).
        try await interactions.run(over: parameters.webviewParameters.parentWindow, onStep: parameters.onStep) { interaction throws(WebAuthError) in
            try await acquireToken(with: parameters, interaction: interaction)
        }
    }

    @MainActor
    private func acquireToken(
        with parameters: InteractiveTokenParameters, interaction: InteractionHandle
    ) async throws(WebAuthError) -> AuthenticationResult {
        if let broker = await activeBroker() {
            return try await acquireToken(with: parameters, through: broker, interaction: interaction)
        }
        try interaction.checkNotCanceled()
        // The store first, as MSAL reads its cache first: a keyring is unlocked now, and a store
        // that cannot keep tokens is known before anyone types a password.
        try await openTokenCacheBeforeSignIn()
        try interaction.checkNotCanceled()
        let metadata = try await authority.providerMetadata()
        let clientInfo = try await authority.sendsClientInfo()
        try interaction.checkNotCanceled()

        var webviewParameters = configuration.routed(parameters.webviewParameters)
        // MSAL's advertisement of the device challenge, to Entra ID and AD FS only.
        webviewParameters.advertisesDeviceChallenge = webviewParameters.advertisesDeviceChallenge || clientInfo
            || configuration.authority.pathComponents.dropFirst().first?.lowercased() == "adfs"
        if clientInfo {
            webviewParameters.signInCookies += await brokerSignInCookies(for: metadata.authorizationEndpoint, parameters: parameters)
            try interaction.checkNotCanceled()
        }
        let session = WebAuthSession(redirectURI: configuration.redirectURI, parameters: webviewParameters)
        interaction.attach(session)
        // One authorization request per redirect URI: the prepared one, and a fresh one (its own
        // state, nonce and PKCE pair) if the sign-in is handed over to the person's browser.
        let requests = AuthorizationRequests()
        let (response, answered) = try await session.authenticateAnswering { [configuration] redirectURI in
            let request = try AuthorizationRequest(
                clientID: configuration.clientID, redirectURI: redirectURI,
                scopes: configuration.defaultScopes + parameters.scopes, prompt: parameters.prompt,
                loginHint: parameters.loginHint, extraParameters: parameters.extraQueryParameters,
                clientInfo: clientInfo)
            return requests.add(request, url: try request.url(endpoint: metadata.authorizationEndpoint))
        }
        // The session checked the state against the request it was waiting for, and names it.
        guard let request = requests.request(answeredBy: answered) else {
            throw WebAuthError(.stateMismatch, "The sign-in response answers no request this app made.", url: response.callbackURL)
        }
        let code = try response.requireCode()
        let issued = try await exchange.redeem(code: code, for: request)
        return await keep(issued.entry, now: issued.receivedAt, afterSignIn: true)
    }

    /// Cancels the interactive calls of this app in progress (``acquireToken(with:)``,
    /// ``acquireTokenWithDeviceCode(with:)``, ``signOut(_:with:)``), from any thread: each ends
    /// with `canceled`. Has no effect when none runs.
    public func cancelCurrentInteractiveSession() {
        interactions.cancelAll()
    }

    // MARK: - Silent

    /// A token for an account signed in earlier, in this process or in an earlier run (through
    /// the token cache's store), without the person: the cached access token while it is valid,
    /// else a new one from the refresh token. Concurrent calls for one account make one refresh
    /// request, in this process and across processes over the same store (the others use the
    /// renewed tokens, also with `forceRefresh`); a refresh token the server rotates replaces
    /// the old one. Renewed tokens the store cannot keep are returned all the same, kept in
    /// memory, and reported in ``AuthenticationResult/tokenCacheError``.
    ///
    /// - Throws: `interactionRequired` when the account is unknown here, the scopes were not
    ///   granted, there is no refresh token, or the provider refused it (its OAuth error, if any,
    ///   is in `serverError`); `providerUnavailable` when the token store cannot be read and this
    ///   process keeps nothing in memory (its ``TokenCacheStorageError`` is the
    ///   `underlyingError`); `network`, `server`, `invalidResponse` otherwise.
    public func acquireTokenSilent(with parameters: SilentTokenParameters) async throws(WebAuthError) -> AuthenticationResult {
        if let broker = await activeBroker() { return try await acquireTokenSilent(with: parameters, through: broker) }
        let account = parameters.account
        let scopes = ScopeSet.normalized(["openid"] + configuration.defaultScopes + parameters.scopes)
        let cached = try await cache.cachedAccount(account)
        if !parameters.forceRefresh, let result = unexpiredResult(cached?.entry(covering: scopes), at: configuration.now()) {
            return result
        }
        let key = ([account.identifier] + scopes.sorted()).joined(separator: " ")
        let result = await refreshes.run(key) { await self.refresh(account: account, scopes: scopes, force: parameters.forceRefresh) }
        return try result.get()
    }

    /// One refresh: reads the store again (another process may have renewed the token
    /// meanwhile), then spends the refresh token and stores what comes back.
    private func refresh(account: Account, scopes: [String], force: Bool) async -> Result<AuthenticationResult, WebAuthError> {
        do throws(WebAuthError) {
            return .success(try await refreshTokens(account: account, scopes: scopes, force: force))
        } catch {
            return .failure(error)
        }
    }

    private func refreshTokens(account: Account, scopes: [String], force: Bool) async throws(WebAuthError) -> AuthenticationResult {
        guard let seen = try await cache.cachedAccount(account) else {
            throw Self.notSignedIn(account)
        }
        if !force, let result = unexpiredResult(seen.entry(covering: scopes), at: configuration.now()) {
            return result
        }
        // One refresh across processes: whoever holds the account's refresh lock renews; the
        // others wait, then read what it stored instead of spending the (maybe one-use) refresh
        // token again.
        let flight = await CrossProcessRefresh.begin(
            cache: cache, account: account, networkTimeout: configuration.networkTimeout, logger: Self.tokenCacheLogger)
        defer { flight.end() }
        guard let cached = try await cache.cachedAccount(account) else {
            throw Self.notSignedIn(account)
        }
        let entry = cached.entry(covering: scopes)
        let now = configuration.now()
        if let result = unexpiredResult(entry, at: now),
            !force || CrossProcessRefresh.renewedElsewhere(before: seen, after: cached, scopes: scopes)
        {
            return result
        }
        guard let refreshToken = cached.refreshToken else {
            if entry == nil {
                throw WebAuthError(
                    .interactionRequired,
                    "\(account) has not granted the scopes \(scopes.joined(separator: " ")) to this app; call acquireToken to ask for them.")
            }
            throw WebAuthError(
                .interactionRequired,
                "The access token of \(account) has expired and there is no refresh token to renew it; call acquireToken to sign in again.")
        }
        let renewal = try await exchange.refresh(
            cached, of: account, refreshToken: refreshToken, scopes: entry?.scopes ?? scopes, readAt: now)
        switch renewal {
        case .refused(let error):
            // Only the refused one: another process may have stored a newer one meanwhile.
            await cache.removeRefreshTokens(of: account, secret: refreshToken)
            throw error
        case .renewed(let issued):
            return await keep(issued.entry, now: issued.receivedAt)
        }
    }

    private static func notSignedIn(_ account: Account) -> WebAuthError {
        WebAuthError(.interactionRequired, "\(account) has not signed in with this app; call acquireToken to sign in.")
    }

    /// `entry`'s result when its access token stays valid for longer than the renewal margin
    /// after `now`, carrying the cache's ``TokenCache/unsavedBecause``; else `nil`.
    private func unexpiredResult(_ entry: TokenCache.Entry?, at now: Date) -> AuthenticationResult? {
        guard let entry, entry.expiresOn.timeIntervalSince(now) > configuration.accessTokenRenewalMargin else { return nil }
        var result = entry.result
        result.tokenCacheError = cache.unsavedBecause
        return result
    }

    // MARK: - Accounts

    /// The accounts this process has seen in the token cache so far (at its last read or
    /// write). Reading it never touches the store, so it is safe on the GTK main thread; after a
    /// restart it is empty until ``allAccounts()`` or another call has read the store. With a
    /// token broker in use, the broker's accounts as it last listed them.
    public var accounts: [Account] { brokerAccounts ?? cache.lastSeen }

    /// Every account signed in with this app, read from the token cache's store (so accounts
    /// from earlier runs, and from other processes, are included). The store is read off the
    /// calling thread.
    ///
    /// - Throws: `providerUnavailable` when the store cannot be read (its ``TokenCacheStorageError``
    ///   is the `underlyingError`).
    public func allAccounts() async throws(WebAuthError) -> [Account] {
        if let broker = await activeBroker() { return try await accounts(through: broker) }
        return try await cache.accounts()
    }

    /// Deletes the account's tokens for this app from the token cache's store, and the account
    /// (the provider's session is not ended). Returns whether anything was cached. While tokens
    /// are kept in memory for this run (``TokenCacheUnavailableDecision/keepInMemoryForThisRun``),
    /// the account is removed from memory, and from the store by ``saveUnsavedTokens()``.
    ///
    /// - Throws: `providerUnavailable` when the store cannot be changed.
    @discardableResult
    public func remove(_ account: Account) async throws(WebAuthError) -> Bool {
        if let broker = await activeBroker() { return try await remove(account, through: broker) }
        return try await cache.remove(account)
    }
}
