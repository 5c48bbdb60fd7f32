/// What ``PublicClientApplication/acquireToken(with:)`` does when the token cache's store cannot
/// be opened (a keyring that stays locked, no Secret Service): asked through
/// ``PublicClientApplicationConfiguration/tokenCacheUnavailable`` before the sign-in page is
/// shown, so nobody types a password for tokens that cannot be kept.
public enum TokenCacheUnavailableDecision: Sendable {
    /// Sign in, and keep tokens in this process's memory for this run: the store is not called
    /// again (no more prompts, no more waits) until
    /// ``PublicClientApplication/saveUnsavedTokens()`` writes them to it. Every result carries
    /// the store's error in ``AuthenticationResult/tokenCacheError``. The default.
    case keepInMemoryForThisRun
    /// Do not show the sign-in page: `acquireToken` throws `providerUnavailable` with the store's
    /// ``TokenCacheStorageError`` as its `underlyingError`.
    case stop
}
