public import Foundation
import WebviewHost

/// What a ``TokenCacheStorage`` holds for one app (its client ID at its authority), found as
/// SignIn's `PublicClientApplication` with that configuration finds it, but without signing in
/// and without writing: the accounts, and an account's tokens. For an app or a tool that uses a
/// store alone (a companion of an msal-python app, a "who is signed in" command).
///
/// Every call loads the store again, on a queue of its own (never on the caller's thread: a
/// keyring may show its unlock prompt), and throws the store's ``TokenCacheStorageError``.
public struct TokenCacheReader: Sendable {
    /// The store read.
    public let storage: any TokenCacheStorage
    private let cache: TokenCache

    /// A reader of what `storage` holds for the app `clientID` signed in at `authority` (the
    /// issuer URL the app configures, e.g. `https://login.microsoftonline.com/<tenant>/v2.0`).
    public init(storage: any TokenCacheStorage, clientID: String, authority: URL) {
        self.storage = storage
        cache = TokenCache(storage: storage, scope: .init(clientID: clientID, authority: authority))
    }

    /// Every account of the app in the store, sorted by ``Account/identifier``.
    public func accounts() async throws(TokenCacheStorageError) -> [Account] {
        do throws(WebAuthError) {
            return try await cache.accounts()
        } catch {
            throw Self.storageError(of: error)
        }
    }

    /// The account's tokens with the access token that holds all of `scopes` and expires last
    /// (any access token when `scopes` is empty), or `nil` when the store has none for it. The
    /// access token may have expired (``AuthenticationResult/expiresOn``): renewing it is
    /// SignIn's work (`acquireTokenSilent`).
    public func tokens(for account: Account, scopes: [String] = []) async throws(TokenCacheStorageError) -> AuthenticationResult? {
        do throws(WebAuthError) {
            return try await cache.cachedAccount(account)?.entry(covering: ScopeSet.normalized(scopes))?.result
        } catch {
            throw Self.storageError(of: error)
        }
    }

    private static func storageError(of error: WebAuthError) -> TokenCacheStorageError {
        error.underlyingError as? TokenCacheStorageError ?? TokenCacheStorageError(.unavailable, error.message)
    }
}
