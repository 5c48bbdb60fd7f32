public import Foundation

/// The tokens a sign-in or a silent renewal produced (MSAL's `MSALResult`).
public struct AuthenticationResult: Sendable {
    /// The bearer token for the APIs the scopes name.
    public let accessToken: String
    /// When ``accessToken`` expires.
    public let expiresOn: Date
    /// The scopes granted (the server's `scope`, or those requested when it says nothing).
    public let scopes: [String]
    /// The ID token as received (a JWS); empty when the provider issued none (``hasIDToken``).
    public let idToken: String
    /// Its claims, verified: signature, issuer, audience, expiry, nonce. When the provider issued
    /// no ID token (``hasIDToken`` is false; some providers' device grant), the claims its
    /// userinfo endpoint returned for the access token (`sub`, `name`, `preferred_username`,
    /// `email`...), with `iss` (the provider), `aud` (this client), `iat` and `exp` (the access
    /// token's) set by the library: who the tokens are for, not a signed statement.
    public let idTokenClaims: IDTokenClaims
    /// The refresh token, when the server gave one.
    public let refreshToken: String?
    /// Who signed in.
    public let account: Account

    /// The result SignIn returns (from a sign-in, a renewal, a broker or the cache).
    package init(
        accessToken: String, expiresOn: Date, scopes: [String], idToken: String, idTokenClaims: IDTokenClaims, refreshToken: String?,
        account: Account, tokenCacheError: TokenCacheStorageError? = nil
    ) {
        self.accessToken = accessToken
        self.expiresOn = expiresOn
        self.scopes = scopes
        self.idToken = idToken
        self.idTokenClaims = idTokenClaims
        self.refreshToken = refreshToken
        self.account = account
        self.tokenCacheError = tokenCacheError
    }

    /// Whether the provider issued an ID token with these tokens. Only a device-code sign-in
    /// (`PublicClientApplication.acquireTokenWithDeviceCode(with:)`) at a provider that sends
    /// none for that grant (django-oauth-toolkit) has none: ``idToken`` is then empty, and the
    /// account and ``idTokenClaims`` come from the provider's userinfo endpoint.
    public var hasIDToken: Bool { !idToken.isEmpty }
    /// Why the token cache's store did not keep these tokens, or `nil` when it did. They are
    /// kept in this process's memory (`PublicClientApplication.acquireTokenSilent(with:)` works
    /// in this run) and written to the store by its next successful write, or by
    /// `PublicClientApplication.saveUnsavedTokens()`; until then a restart loses them. The
    /// same error is logged and posted as
    /// `PublicClientApplication.tokenCacheDidFailNotification`. Show the person its message
    /// (e.g. "unlock your keyring") and offer to try again.
    ///
    /// One notice is not a failure: ``TokenCacheStorageError/Code/unsafeFileReplaced`` (its
    /// ``TokenCacheStorageError/tokensWereKept`` is true) says a cache file others could write was
    /// replaced with a new one holding these tokens; only the accounts the old file held are lost.
    public package(set) var tokenCacheError: TokenCacheStorageError?
}
