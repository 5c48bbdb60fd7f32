public import Foundation

/// The tokens a sign-in or a silent renewal produced (MSAL's `MSALResult`).
public struct AuthenticationResult: Sendable {
    /// The bearer token for the APIs the scopes name.
    public let accessToken: String
    /// When ``accessToken`` expires.
    public let expiresOn: Date
    /// The scopes granted (the server's `scope`, or those requested when it says nothing).
    public let scopes: [String]
    /// The ID token as received (a JWS).
    public let idToken: String
    /// Its claims, verified: signature, issuer, audience, expiry, nonce.
    public let idTokenClaims: IDTokenClaims
    /// The refresh token, when the server gave one.
    public let refreshToken: String?
    /// Who signed in.
    public let account: Account
    /// Why the token cache's store did not keep these tokens, or `nil` when it did. They are
    /// kept in this process's memory (``PublicClientApplication/acquireTokenSilent(with:)`` works
    /// in this run) and written to the store by its next successful write, or by
    /// ``PublicClientApplication/saveUnsavedTokens()``; until then a restart loses them. The
    /// same error is logged and posted as
    /// ``PublicClientApplication/tokenCacheDidFailNotification``. Show the person its message
    /// (e.g. "unlock your keyring") and offer to try again.
    ///
    /// One notice is not a failure: ``TokenCacheStorageError/Code/unsafeFileReplaced`` (its
    /// ``TokenCacheStorageError/tokensWereKept`` is true) says a cache file others could write was
    /// replaced with a new one holding these tokens; only the accounts the old file held are lost.
    public internal(set) var tokenCacheError: TokenCacheStorageError?
}
