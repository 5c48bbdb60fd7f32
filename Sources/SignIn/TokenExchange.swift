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
    /// (`iss`, `aud`, `exp`, `iat`, the signature), as an entry for the cache.
    ///
    /// - Throws: `invalidResponse` for a missing or refused ID token.
    func issued(from tokens: TokenResponse, scopes: [String]) async throws(WebAuthError) -> Issued {
        guard let idToken = tokens.idToken else {
            throw WebAuthError(.invalidResponse, "The token endpoint returned no ID token although openid was requested.")
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
