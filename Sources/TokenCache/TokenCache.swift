package import Foundation
import Synchronization
package import WebviewHost

/// The tokens of the accounts signed in through one ``PublicClientApplication``, kept in a
/// ``TokenCacheStorage`` in MSAL's unified cache format (``MSALTokenCacheDocument``).
///
/// Every read loads the store and every change is lock, load, change, save, unlock, so what
/// another process (or another app sharing the store) wrote in between is never lost. The store
/// is only called on this cache's serial queue, never on the caller's thread: the GTK main
/// thread does not wait on D-Bus or on a file lock.
package final class TokenCache: Sendable {
    package let storage: any TokenCacheStorage
    /// The provider's token endpoint once discovery has run, asked without the network (SignIn
    /// passes its `Authority`'s); none for a cache that only reads (``TokenCacheReader``).
    let discoveredTokenEndpoint: (@Sendable () async -> URL?)?
    private let scopeState: Mutex<Scope>
    /// This app's part of the store and MSAL's keys for it; its realm is the token endpoint's
    /// once the provider's discovery document has been read (``Scope/usingTokenEndpoint(_:)``).
    package var scope: Scope { scopeState.withLock { $0 } }
    /// The only thread the store is called on (TokenCache+Store.swift).
    let queue = DispatchQueue(label: "SignIn.TokenCache")
    /// What this process holds that the store may not (yet).
    let memory = TokenCacheMemory()
    /// The accounts seen at the last read or write, for the synchronous ``PublicClientApplication/accounts``.
    let lastSeenAccounts = Mutex<[Account]>([])

    package init(storage: any TokenCacheStorage, scope: Scope, discoveredTokenEndpoint: (@Sendable () async -> URL?)? = nil) {
        self.storage = storage
        self.discoveredTokenEndpoint = discoveredTokenEndpoint
        scopeState = Mutex(scope)
    }

    /// ``scope``, first taking the token endpoint's realm when discovery has run since.
    package func currentScope() async -> Scope {
        if scope.tokenEndpointRealm == nil, let endpoint = await discoveredTokenEndpoint?() {
            scopeState.withLock { $0 = $0.usingTokenEndpoint(endpoint) }
        }
        return scope
    }

    // MARK: - Reading

    /// What the store holds for `account` (nil when nothing).
    package func cachedAccount(_ account: Account) async throws(WebAuthError) -> CachedAccount? {
        let document = try await load()
        return cachedAccount(account, in: document)
    }

    /// Every account with an ID token of this app in the store, sorted by identifier.
    package func accounts() async throws(WebAuthError) -> [Account] {
        let document = try await load()
        return accounts(in: document)
    }

    /// The accounts seen at the last read or write of the store by this process.
    package var lastSeen: [Account] { lastSeenAccounts.withLock { $0 } }

    // MARK: - Writing

    /// Stores `entry`: its access token (replacing the one for the same scopes), ID token,
    /// account, and its refresh token, which replaces the account's previous one for this app
    /// (a rotated refresh token makes the old one useless). Throws when the store fails.
    package func store(_ entry: Entry, now: Date) async throws(WebAuthError) {
        try await put(entry, now: now, keepingOnFailure: false)
    }

    /// ``store(_:now:)`` that never loses the entry: when the store fails, the entry is kept in
    /// this process's memory (reads see it, the next write stores it) and the store's error is
    /// returned.
    @discardableResult
    package func keep(_ entry: Entry, now: Date) async -> TokenCacheStorageError? {
        try? await put(entry, now: now, keepingOnFailure: true)
    }

    /// The body of ``store(_:now:)`` and ``keep(_:now:)``: writes `entry` under MSAL's keys for
    /// this app's scope (``currentScope()``, so with the token endpoint's realm once discovery has run).
    @discardableResult
    private func put(_ entry: Entry, now: Date, keepingOnFailure: Bool) async throws(WebAuthError) -> TokenCacheStorageError? {
        let scope = await currentScope()
        return try await update(keepingOnFailure: keepingOnFailure) { document in
            Self.write(entry, now: now, scope: scope, into: &document)
        }
    }

    /// Forgets the account's tokens for this app, and the account; returns whether any were cached.
    /// While the app keeps tokens in memory for this run, the removal is made there and written
    /// to the store with the rest by ``attach()``.
    @discardableResult
    package func remove(_ account: Account) async throws(WebAuthError) -> Bool {
        let scope = await currentScope()
        let removed = Mutex(0)
        try await update(keepingOnFailure: memory.detachedBecause != nil) { document in
            let owner = Self.owner(of: account, in: document, scope: scope)
            var count = 0
            for section in [MSALTokenCacheDocument.Section.accessToken, .refreshToken, .idToken, .account] {
                count += document.remove(section) { Self.belongs($0, in: section, to: owner, scope: scope) }
            }
            removed.withLock { $0 = count }
        }
        return removed.withLock { $0 } > 0
    }

    /// ``remove(_:)`` that never fails for the store: a store that cannot take the removal keeps
    /// it in memory (reads see the account gone; the next write removes it) and its error is
    /// returned. Whether the cache held anything of the account.
    package func forget(_ account: Account) async -> (removed: Bool, storeError: TokenCacheStorageError?) {
        let scope = await currentScope()
        let removed = Mutex(0)
        let storeError = try? await update(keepingOnFailure: true) { document in
            let owner = Self.owner(of: account, in: document, scope: scope)
            var count = 0
            for section in [MSALTokenCacheDocument.Section.accessToken, .refreshToken, .idToken, .account] {
                count += document.remove(section) { Self.belongs($0, in: section, to: owner, scope: scope) }
            }
            removed.withLock { $0 = max($0, count) }
        }
        return (removed.withLock { $0 } > 0, storeError ?? nil)
    }

    /// Forgets the account's refresh tokens for this app (one was refused); with `secret`, only
    /// those with that secret, so that a token another process just stored survives.
    @discardableResult
    package func removeRefreshTokens(of account: Account, secret: String? = nil) async -> TokenCacheStorageError? {
        let scope = await currentScope()
        return try? await update(keepingOnFailure: true) { document in
            let owner = Self.owner(of: account, in: document, scope: scope)
            document.remove(.refreshToken) { fields in
                Self.belongs(fields, in: .refreshToken, to: owner, scope: scope) && (secret == nil || fields[string: "secret"] == secret)
            }
        }
    }

    /// Replaces the secret of the account's refresh tokens (tests simulate a garbled one with it).
    package func replaceRefreshTokens(of account: Account, with token: String) async throws(WebAuthError) {
        let scope = await currentScope()
        try await update { document in
            let owner = Self.owner(of: account, in: document, scope: scope)
            for (key, fields) in document.entries(.refreshToken) where Self.belongs(fields, in: .refreshToken, to: owner, scope: scope) {
                document.put(.refreshToken, key: key, ["secret": .string(token)])
            }
        }
    }
}
