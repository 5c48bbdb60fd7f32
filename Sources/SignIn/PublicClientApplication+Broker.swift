import Foundation
import Logging
import WebviewHost

/// The broker path of ``PublicClientApplication`` (``PublicClientApplicationConfiguration/usesTokenBroker``).
///
/// What the token cache holds: without a broker, every account's ID, access and refresh tokens
/// (MSAL's unified format, in the configured store). With a broker in use, nothing from the
/// broker: its tokens stay with it and every silent call asks it again (the broker caches), and
/// ``PublicClientApplication/accounts`` and ``PublicClientApplication/allAccounts()`` list the
/// broker's accounts. Accounts signed in through the web flow (when no broker was available)
/// stay in the cache as before.
extension PublicClientApplication {
    var brokerClient: TokenBrokerClient {
        TokenBrokerClient(clientID: configuration.clientID, authority: configuration.authority, redirectURI: configuration.redirectURI)
    }

    /// The broker to use now, or `nil` for the usual flow.
    func activeBroker() async -> (any TokenBroker)? {
        guard configuration.usesTokenBroker else { return nil }
        return await brokerSelection.broker(for: configuration.authority)
    }

    /// Signs in through `broker`, as a ``WebviewHost/WebAuthSession`` handed over to it (the
    /// one-session slot, `willSwitchToBrokerApp` first, then `didComplete` or `didFail`).
    @MainActor
    func acquireToken(
        with parameters: InteractiveTokenParameters, through broker: any TokenBroker, interaction: InteractionHandle
    ) async throws(WebAuthError) -> AuthenticationResult {
        let session = WebAuthSession(redirectURI: configuration.redirectURI, parameters: configuration.routed(parameters.webviewParameters))
        interaction.attach(session)
        let request = TokenBrokerRequest(
            client: brokerClient, scopes: brokerScopes(parameters.scopes), loginHint: parameters.loginHint,
            prompt: parameters.prompt, parentWindow: parameters.webviewParameters.parentWindow)
        let result = try await session.handOverToBroker(at: configuration.authority) { () async throws(WebAuthError) -> TokenBrokerResult in
            try await broker.acquireTokenInteractively(request)
        }
        return try brokered(result)
    }

    /// A silent call answered by `broker`.
    func acquireTokenSilent(with parameters: SilentTokenParameters, through broker: any TokenBroker) async throws(WebAuthError) -> AuthenticationResult {
        let request = TokenBrokerRequest(
            client: brokerClient, scopes: brokerScopes(parameters.scopes), account: parameters.account,
            forceRefresh: parameters.forceRefresh)
        return try brokered(try await broker.acquireTokenSilently(request))
    }

    func accounts(through broker: any TokenBroker) async throws(WebAuthError) -> [Account] {
        let accounts = try await broker.accounts(for: brokerClient)
        brokerSelection.accounts = accounts
        return accounts
    }

    func remove(_ account: Account, through broker: any TokenBroker) async throws(WebAuthError) -> Bool {
        let known = try await broker.accounts(for: brokerClient).contains { $0.identifier == account.identifier }
        guard known else { return false }
        try await broker.signOut(account, for: brokerClient)
        brokerSelection.forget(account)
        return true
    }

    /// The first available broker's single-sign-on cookies for an embedded sign-in at
    /// `signInURL` (an Entra ID authority's authorization endpoint), for its host only; none when
    /// the app turned them off, the sign-in cannot be embedded or may not take them (a caller's
    /// view that did not allow them), no broker is available, or the broker fails (logged).
    func brokerSignInCookies(for signInURL: URL, parameters: InteractiveTokenParameters) async -> [SignInCookie] {
        let webview = parameters.webviewParameters
        guard configuration.usesBrokerSignInCookies, brokerSelection.hasBrokers else { return [] }
        if webview.webviewType == .authenticationSession { return [] }
        if webview.customWebview != nil, !webview.signInCookiesInCustomWebview { return [] }
        guard let broker = await brokerSelection.broker(for: configuration.authority) else { return [] }
        let host = (signInURL.host ?? "").lowercased()
        let request = TokenBrokerCookieRequest(
            client: brokerClient, signInURL: signInURL, scopes: brokerScopes(parameters.scopes), loginHint: parameters.loginHint)
        let cookies: [SignInCookie]
        do throws(WebAuthError) {
            cookies = try await broker.signInCookies(for: request)
        } catch {
            TokenBrokerSelection.logger.info(
                "the token broker gave no sign-in cookie; the person signs in on the page",
                metadata: ["broker": "\(broker.id)", "code": "\(error.code)", "why": "\(error.message)"])
            return []
        }
        let usable = cookies.filter { cookie in
            let fits = cookie.host == host && cookie.problem == nil
            if !fits {
                TokenBrokerSelection.logger.warning(
                    "a sign-in cookie of the token broker was not used",
                    metadata: ["broker": "\(broker.id)", "cookie": "\(cookie.name)", "host": "\(cookie.host)",
                               "why": "\(cookie.problem ?? "it is not for the sign-in page's host \(host)")"])
            }
            return fits
        }
        TokenBrokerSelection.logger.debug("sign-in cookies from the token broker", metadata: ["broker": "\(broker.id)", "count": "\(usable.count)"])
        return usable
    }

    /// The accounts a broker listed last, when one was used.
    var brokerAccounts: [Account]? { configuration.usesTokenBroker ? brokerSelection.accounts : nil }

    /// What the app asked for, as real clients of Microsoft's broker send it (Edge, sso-mib): the
    /// OpenID scopes the web flow adds are not sent; an empty list sends them instead.
    private func brokerScopes(_ scopes: [String]) -> [String] {
        let asked = ScopeSet.normalized(scopes)
        return asked.isEmpty ? ScopeSet.normalized(configuration.defaultScopes) : asked
    }

    /// The broker's result as an ``AuthenticationResult``: the ID token's claims are read (the
    /// broker is trusted, as MSAL trusts it), not verified again; no refresh token.
    private func brokered(_ result: TokenBrokerResult) throws(WebAuthError) -> AuthenticationResult {
        let claims: IDTokenClaims
        do {
            claims = try IDTokenClaims(json: IDToken(result.idToken).payload)
        } catch {
            throw WebAuthError(
                .invalidResponse, "The broker returned an ID token that cannot be read: \(error.detail)", underlyingError: error)
        }
        brokerSelection.remember(result.account)
        return AuthenticationResult(
            accessToken: result.accessToken, expiresOn: result.expiresOn, scopes: result.scopes, idToken: result.idToken,
            idTokenClaims: claims, refreshToken: nil, account: result.account)
    }
}
