import Foundation
import WebviewHost

/// The two grants ``PublicClientApplication`` makes at the token endpoint: redeeming an
/// authorization code (RFC 6749 4.1.3, with the PKCE verifier) and spending a refresh token
/// (RFC 6749 6), each answer's ID token verified with the issuer's keys. It stores nothing: the
/// application keeps what it returns.
struct TokenExchange: Sendable {
    let authority: Authority
    let clientID: String
    let allowedClockSkew: TimeInterval
    let now: @Sendable () -> Date

    /// Tokens the endpoint issued, and when they were received (the cache's `cached_at`).
    struct Issued: Sendable {
        var entry: TokenCache.Entry
        var receivedAt: Date
    }

    /// What spending a refresh token gave.
    enum Renewal: Sendable {
        case renewed(Issued)
        /// The provider refused the refresh token: `interactionRequired`, with its OAuth error if
        /// it sent one. The token is useless from now on.
        case refused(WebAuthError)
    }

    init(authority: Authority, configuration: PublicClientApplicationConfiguration) {
        self.authority = authority
        clientID = configuration.clientID
        allowedClockSkew = configuration.allowedClockSkew
        now = configuration.now
    }

    /// The code exchange, then the ID token checks (with the request's nonce).
    ///
    /// - Throws: `server` with the provider's OAuth error when it refused the code,
    ///   `invalidResponse` for a missing or refused ID token, `network`.
    func redeem(code: String, for request: AuthorizationRequest) async throws(WebAuthError) -> Issued {
        let outcome = try await authority.requestTokens([
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", request.redirectURI.absoluteString),
            ("client_id", clientID),
            ("code_verifier", request.pkce.verifier),
        ])
        let tokens: TokenResponse
        switch outcome {
        case .tokens(let response):
            tokens = response
        case .refused(_, let oauthError?):
            throw WebAuthError.server(oauthError.serverError)
        case .refused(let status, nil):
            throw WebAuthError(.server, "The sign-in server refused the authorization code (HTTP \(status), no OAuth error given); sign in again.")
        }
        guard let idToken = tokens.idToken else {
            throw WebAuthError(.invalidResponse, "The token endpoint returned no ID token although openid was requested.")
        }
        let claims = try await verify(idToken: idToken, nonce: request.nonce)
        let now = now()
        let entry = TokenCache.Entry(
            account: Account(claims: claims, homeAccountID: tokens.clientInfo.flatMap(ClientInfo.init(encoded:))?.homeAccountID),
            scopes: tokens.scope.map { ScopeSet.normalized([$0]) } ?? request.scopes,
            accessToken: tokens.accessToken,
            expiresOn: now.addingTimeInterval(tokens.expiresIn ?? claims.expiresAt.timeIntervalSince(now)),
            idToken: idToken, idTokenClaims: claims, refreshToken: tokens.refreshToken)
        return Issued(entry: entry, receivedAt: now)
    }

    /// Tokens a grant without a nonce returned (the device code grant): the ID token verified
    /// (`iss`, `aud`, `exp`, `iat`, the signature), as an entry for the cache. A provider that
    /// sends no ID token for this grant (django-oauth-toolkit) is asked who the access token is
    /// for at its userinfo endpoint, as msal-python returns such a grant's tokens.
    ///
    /// - Throws: `invalidResponse` for a refused ID token, or none and no userinfo to name the
    ///   account by.
    func issued(from tokens: TokenResponse, scopes: [String]) async throws(WebAuthError) -> Issued {
        guard let idToken = tokens.idToken else {
            return try await issuedWithoutIDToken(tokens, scopes: scopes)
        }
        let claims = try await verify(idToken: idToken, nonce: nil)
        let now = now()
        let entry = TokenCache.Entry(
            account: Account(claims: claims, homeAccountID: tokens.clientInfo.flatMap(ClientInfo.init(encoded:))?.homeAccountID),
            scopes: tokens.scope.map { ScopeSet.normalized([$0]) } ?? scopes,
            accessToken: tokens.accessToken,
            expiresOn: now.addingTimeInterval(tokens.expiresIn ?? claims.expiresAt.timeIntervalSince(now)),
            idToken: idToken, idTokenClaims: claims, refreshToken: tokens.refreshToken)
        return Issued(entry: entry, receivedAt: now)
    }

    /// Tokens without an ID token: the account from the userinfo endpoint (OpenID Connect Core
    /// 5.3), asked with the new access token over the same connection as the token endpoint.
    private func issuedWithoutIDToken(_ tokens: TokenResponse, scopes: [String]) async throws(WebAuthError) -> Issued {
        let metadata = try await authority.providerMetadata()
        guard let endpoint = metadata.userinfoEndpoint else {
            throw WebAuthError(
                .invalidResponse,
                "The token endpoint returned no ID token, and the provider has no userinfo endpoint (userinfo_endpoint) "
                    + "to say whom the tokens are for; they were not used.")
        }
        let (status, body) = try await authority.connection.get(endpoint, bearer: tokens.accessToken)
        guard status == 200 else {
            throw WebAuthError(
                .invalidResponse,
                "The token endpoint returned no ID token, and the userinfo endpoint \(endpoint) answered HTTP \(status) "
                    + "to the new access token; the tokens were not used.", url: endpoint)
        }
        let now = now()
        let expiresOn = now.addingTimeInterval(tokens.expiresIn ?? 3600)
        let claims: IDTokenClaims
        do {
            claims = try IDTokenClaims(userinfo: body, issuer: metadata.issuer, clientID: clientID, issuedAt: now, expiresAt: expiresOn)
        } catch {
            throw WebAuthError(
                .invalidResponse, "The token endpoint returned no ID token, and the userinfo endpoint's answer cannot name the account: \(error.detail)",
                url: endpoint, underlyingError: error)
        }
        let entry = TokenCache.Entry(
            account: Account(claims: claims, homeAccountID: tokens.clientInfo.flatMap(ClientInfo.init(encoded:))?.homeAccountID),
            scopes: tokens.scope.map { ScopeSet.normalized([$0]) } ?? scopes,
            accessToken: tokens.accessToken, expiresOn: expiresOn,
            idToken: "", idTokenClaims: claims, refreshToken: tokens.refreshToken)
        return Issued(entry: entry, receivedAt: now)
    }

    /// Spends `refreshToken` for `scopes` of `account` (as `cached` holds it, read at `readAt`). A
    /// new ID token must name the same person at the same provider (OpenID Connect Core 12.2);
    /// without one the cached ID token stays, and without a new refresh token the spent one.
    ///
    /// - Throws: `invalidResponse` for a refused ID token, `network`, `server` for a 5xx.
    func refresh(
        _ cached: TokenCache.CachedAccount, of account: Account, refreshToken: String, scopes: [String], readAt: Date
    ) async throws(WebAuthError) -> Renewal {
        let outcome = try await authority.requestTokens([
            ("grant_type", "refresh_token"),
            ("refresh_token", refreshToken),
            ("client_id", clientID),
            ("scope", scopes.joined(separator: " ")),
        ])
        switch outcome {
        case .refused(let status, let oauthError):
            // The server's words go through WebAuthError.server, which puts them on one short line.
            let serverError = oauthError?.serverError
            let said = serverError.map { WebAuthError.server($0).message } ?? "It answered HTTP \(status)."
            return .refused(
                WebAuthError(
                    .interactionRequired,
                    "The sign-in server refused to renew the token of \(account). \(said) Call acquireToken to sign in again.",
                    serverError: serverError))
        case .tokens(let tokens):
            let renewedAt = now()
            var renewed = TokenCache.Entry(
                account: cached.account, scopes: scopes, accessToken: tokens.accessToken,
                expiresOn: renewedAt.addingTimeInterval(tokens.expiresIn ?? cached.idTokenClaims.expiresAt.timeIntervalSince(readAt)),
                idToken: cached.idToken, idTokenClaims: cached.idTokenClaims,
                refreshToken: tokens.refreshToken ?? refreshToken)
            if let scope = tokens.scope { renewed.scopes = ScopeSet.normalized([scope]) }
            if let idToken = tokens.idToken {
                let claims = try await verify(idToken: idToken, nonce: nil)
                // OpenID Connect Core 12.2: same person, same provider, same nonce if any.
                guard claims.subject == cached.idTokenClaims.subject, claims.issuer == cached.idTokenClaims.issuer,
                    claims.nonce == nil || claims.nonce == cached.idTokenClaims.nonce
                else {
                    throw Self.refused(IDTokenValidationError(.accountMismatch, "The renewed ID token names another account or request than the first one."))
                }
                renewed.idToken = idToken
                renewed.idTokenClaims = claims
                renewed.account = Account(claims: claims, homeAccountID: cached.account.homeAccountID)
            }
            return .renewed(Issued(entry: renewed, receivedAt: renewedAt))
        }
    }

    /// Verifies an ID token with the issuer's keys, fetching them again once for an unknown key.
    func verify(idToken: String, nonce: String?) async throws(WebAuthError) -> IDTokenClaims {
        let metadata = try await authority.providerMetadata()
        let validator = IDTokenValidator(issuer: metadata.issuer, clientID: clientID, allowedClockSkew: allowedClockSkew)
        var (keys, fresh) = try await authority.signingKeys()
        while true {
            do {
                return try validator.validate(idToken, keys: keys, nonce: nonce, now: now())
            } catch let error where error.reason == .unknownKey && !fresh {
                (keys, fresh) = try await authority.signingKeys(refresh: true)
                if !fresh { throw Self.refused(error) }
            } catch {
                throw Self.refused(error)
            }
        }
    }

    /// The error for an ID token that failed a check: `invalidResponse`, the check's error underneath.
    static func refused(_ error: IDTokenValidationError) -> WebAuthError {
        WebAuthError(.invalidResponse, "The ID token was refused: \(error.detail)", underlyingError: error)
    }
}
