import Foundation
import Synchronization
import WebviewHost

/// The tokens of the accounts signed in through one ``PublicClientApplication``, kept in a
/// ``TokenCacheStorage`` in MSAL's unified cache format (``MSALTokenCacheDocument``).
///
/// Every read loads the store and every change is lock, load, change, save, unlock, so what
/// another process (or another app sharing the store) wrote in between is never lost. The store
/// is only called on this cache's serial queue, never on the caller's thread: the GTK main
/// thread does not wait on D-Bus or on a file lock.
final class TokenCache: Sendable {
    /// The tokens of one account for one set of scopes.
    struct Entry: Sendable {
        var account: Account
        var scopes: [String]
        var accessToken: String
        var expiresOn: Date
        var idToken: String
        var idTokenClaims: IDTokenClaims
        var refreshToken: String?

        var result: AuthenticationResult {
            AuthenticationResult(
                accessToken: accessToken, expiresOn: expiresOn, scopes: scopes, idToken: idToken,
                idTokenClaims: idTokenClaims, refreshToken: refreshToken, account: account)
        }

        func covers(_ requested: [String]) -> Bool {
            Set(requested).isSubset(of: Set(scopes))
        }
    }

    /// What the store holds for one account of this app.
    struct CachedAccount: Sendable {
        var account: Account
        var idToken: String
        var idTokenClaims: IDTokenClaims
        /// Access tokens, the one that expires last first.
        var accessTokens: [(scopes: [String], secret: String, expiresOn: Date)]
        var refreshToken: String?

        /// The access token whose scopes hold all of `scopes` and that expires last, as an entry.
        func entry(covering scopes: [String]) -> Entry? {
            guard let token = accessTokens.first(where: { Set(scopes).isSubset(of: Set($0.scopes)) }) else { return nil }
            return Entry(
                account: account, scopes: token.scopes, accessToken: token.secret, expiresOn: token.expiresOn,
                idToken: idToken, idTokenClaims: idTokenClaims, refreshToken: refreshToken)
        }
    }

    let storage: any TokenCacheStorage
    /// The provider, asked (without the network) for its token endpoint once discovery has run.
    let authority: Authority?
    private let scopeState: Mutex<Scope>
    /// This app's part of the store and MSAL's keys for it; its realm is the token endpoint's
    /// once the provider's discovery document has been read (``Scope/usingTokenEndpoint(_:)``).
    var scope: Scope { scopeState.withLock { $0 } }
    private let queue = DispatchQueue(label: "SignIn.TokenCache")
    /// What this process holds that the store may not (yet).
    private let memory = TokenCacheMemory()
    /// The accounts seen at the last read or write, for the synchronous ``PublicClientApplication/accounts``.
    private let lastSeenAccounts = Mutex<[Account]>([])

    init(storage: any TokenCacheStorage, scope: Scope, authority: Authority? = nil) {
        self.storage = storage
        self.authority = authority
        scopeState = Mutex(scope)
    }

    /// ``scope``, first taking the token endpoint's realm when discovery has run since.
    private func currentScope() async -> Scope {
        if scope.tokenEndpointRealm == nil, let endpoint = await authority?.discoveredTokenEndpoint {
            scopeState.withLock { $0 = $0.usingTokenEndpoint(endpoint) }
        }
        return scope
    }

    // MARK: - Reading

    /// What the store holds for `account` (nil when nothing).
    func cachedAccount(_ account: Account) async throws(WebAuthError) -> CachedAccount? {
        let document = try await load()
        return cachedAccount(account, in: document)
    }

    /// Every account with an ID token of this app in the store, sorted by identifier.
    func accounts() async throws(WebAuthError) -> [Account] {
        let document = try await load()
        return accounts(in: document)
    }

    /// The accounts seen at the last read or write of the store by this process.
    var lastSeen: [Account] { lastSeenAccounts.withLock { $0 } }

    // MARK: - Writing

    /// Stores `entry`: its access token (replacing the one for the same scopes), ID token,
    /// account, and its refresh token, which replaces the account's previous one for this app
    /// (a rotated refresh token makes the old one useless). Throws when the store fails.
    func store(_ entry: Entry, now: Date) async throws(WebAuthError) {
        try await put(entry, now: now, keepingOnFailure: false)
    }

    /// ``store(_:now:)`` that never loses the entry: when the store fails, the entry is kept in
    /// this process's memory (reads see it, the next write stores it) and the store's error is
    /// returned.
    @discardableResult
    func keep(_ entry: Entry, now: Date) async -> TokenCacheStorageError? {
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
    func remove(_ account: Account) async throws(WebAuthError) -> Bool {
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

    /// Forgets the account's refresh tokens for this app (one was refused); with `secret`, only
    /// those with that secret, so that a token another process just stored survives.
    @discardableResult
    func removeRefreshTokens(of account: Account, secret: String? = nil) async -> TokenCacheStorageError? {
        let scope = await currentScope()
        return try? await update(keepingOnFailure: true) { document in
            let owner = Self.owner(of: account, in: document, scope: scope)
            document.remove(.refreshToken) { fields in
                Self.belongs(fields, in: .refreshToken, to: owner, scope: scope) && (secret == nil || fields[string: "secret"] == secret)
            }
        }
    }

    /// Replaces the secret of the account's refresh tokens (tests simulate a garbled one with it).
    func replaceRefreshTokens(of account: Account, with token: String) async throws(WebAuthError) {
        let scope = await currentScope()
        try await update { document in
            let owner = Self.owner(of: account, in: document, scope: scope)
            for (key, fields) in document.entries(.refreshToken) where Self.belongs(fields, in: .refreshToken, to: owner, scope: scope) {
                document.put(.refreshToken, key: key, ["secret": .string(token)])
            }
        }
    }

    // MARK: - The store, on the queue

    /// Opens the store before a person is asked to sign in (``TokenCacheStorage/prepare()``: a
    /// keyring is unlocked here) and reads it; the store's error when it cannot be used. Does
    /// nothing while the app keeps tokens in memory for this run.
    func open() async -> TokenCacheStorageError? {
        if memory.detachedBecause != nil { return nil }
        _ = await currentScope()
        let storage = storage
        do throws(WebAuthError) {
            let stored = try await onQueue { () throws(TokenCacheStorageError) in
                try storage.prepare()
                return MSALTokenCacheDocument(data: try storage.load())
            }
            memory.remember(stored: stored)
            remember(memory.document(over: stored))
            return nil
        } catch {
            return Self.storageError(of: error)
        }
    }

    /// Whether the store is not called for the rest of this run, and why.
    var detachedBecause: TokenCacheStorageError? { memory.detachedBecause }

    /// Keeps tokens in this process's memory only, without calling the store, until ``attach()``.
    func detach(because error: TokenCacheStorageError) { memory.detach(because: error) }

    /// Why some tokens are only in memory now; `nil` when the store holds everything.
    var unsavedBecause: TokenCacheStorageError? { memory.unsavedBecause }

    /// Uses the store again and writes what only memory holds into it.
    func attach() async throws(WebAuthError) {
        let detached = memory.detachedBecause
        memory.attach()
        do throws(WebAuthError) {
            try await update { _ in }
        } catch {
            if let detached { memory.detach(because: detached) }
            throw error
        }
    }

    private func load() async throws(WebAuthError) -> MSALTokenCacheDocument {
        _ = await currentScope()
        if memory.detachedBecause != nil {
            let document = memory.document()
            remember(document)
            return document
        }
        let storage = storage
        do throws(WebAuthError) {
            let stored = try await onQueue { () throws(TokenCacheStorageError) in MSALTokenCacheDocument(data: try storage.load()) }
            memory.remember(stored: stored)
            let document = memory.document(over: stored)
            remember(document)
            return document
        } catch {
            // Tokens this process got and could not store are still usable here.
            guard memory.hasUnsavedChanges else { throw error }
            let document = memory.document()
            remember(document)
            return document
        }
    }

    /// Lock, load, change, save, unlock: the change applies to what the store holds now, after
    /// the changes an earlier write could not store. With `keepingOnFailure`, a store that fails
    /// does not lose the change: it is kept in memory for the next write, and the store's error
    /// is returned instead of thrown.
    @discardableResult
    private func update(
        keepingOnFailure: Bool = false, _ change: @escaping @Sendable (inout MSALTokenCacheDocument) -> Void
    ) async throws(WebAuthError) -> TokenCacheStorageError? {
        if let detached = memory.detachedBecause {
            guard keepingOnFailure else {
                throw WebAuthError(
                    .providerUnavailable, "The token cache is kept in memory for this run. \(detached.message)", underlyingError: detached)
            }
            memory.keep(change, because: detached)
            remember(memory.document())
            return detached
        }
        let storage = storage
        let pending = memory.pending()
        do throws(WebAuthError) {
            let document = try await onQueue { () throws(TokenCacheStorageError) in
                try storage.withWriterLock { () throws(TokenCacheStorageError) in
                    var document = MSALTokenCacheDocument(data: try storage.load())
                    for (_, earlier) in pending { earlier(&document) }
                    change(&document)
                    try storage.save(document.serialized())
                    return document
                }
            }
            memory.saved(pending.map(\.id), document: document)
            remember(memory.document(over: document))
            return nil
        } catch {
            guard keepingOnFailure, let storageError = Self.storageError(of: error) else { throw error }
            memory.keep(change, because: storageError)
            remember(memory.document())
            return storageError
        }
    }

    private func remember(_ document: MSALTokenCacheDocument) {
        let accounts = accounts(in: document)
        lastSeenAccounts.withLock { $0 = accounts }
    }

    private static func storageError(of error: WebAuthError) -> TokenCacheStorageError? {
        error.underlyingError as? TokenCacheStorageError
    }

    private func onQueue<T: Sendable>(_ work: @escaping @Sendable () throws(TokenCacheStorageError) -> T) async throws(WebAuthError) -> T {
        let queue = queue
        let result: Result<T, TokenCacheStorageError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(TokenCacheStorageError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            throw WebAuthError(.providerUnavailable, "The token cache could not be used. \(error.message)", underlyingError: error)
        }
    }

    // MARK: - The format

    /// Who an account is in the cache: its `home_account_id` (the one its ID token is stored
    /// under, which is `<uid>.<utid>` for Microsoft Entra ID) and its `tid`, if any.
    struct Owner: Sendable {
        var homeAccountID: String
        var tenant: String?
    }

    /// The ID tokens of this scope, with their claims (``Scope/owns(_:in:homeAccountID:tenant:)``).
    private static func idTokens(in document: MSALTokenCacheDocument, scope: Scope)
        -> [(key: String, fields: MSALTokenCacheDocument.Fields, secret: String, claims: IDTokenClaims)]
    {
        document.entries(.idToken).compactMap { key, fields in
            guard let home = fields[string: "home_account_id"], scope.owns(fields, in: .idToken, homeAccountID: home),
                let secret = fields[string: "secret"], let claims = claims(of: secret)
            else { return nil }
            return (key, fields, secret, claims)
        }
    }

    /// The account's owner in `document`: found through its ID token (same subject and issuer), else
    /// the account's own ``Account/homeAccountID``.
    static func owner(of account: Account, in document: MSALTokenCacheDocument, scope: Scope) -> Owner {
        let match = idTokens(in: document, scope: scope)
            .filter { $0.claims.subject == account.subject && $0.claims.issuer == account.issuer }
            // This library's own entries first, then a stable order.
            .min { ($0.fields[Scope.authorityField] == nil ? 1 : 0, $0.key) < ($1.fields[Scope.authorityField] == nil ? 1 : 0, $1.key) }
        guard let match, let home = match.fields[string: "home_account_id"] else { return Owner(homeAccountID: account.homeAccountID) }
        return Owner(homeAccountID: home, tenant: tenant(of: match.claims))
    }

    private static func belongs(_ fields: MSALTokenCacheDocument.Fields, in section: MSALTokenCacheDocument.Section, to owner: Owner, scope: Scope) -> Bool {
        scope.owns(fields, in: section, homeAccountID: owner.homeAccountID, tenant: owner.tenant)
    }

    private func accounts(in document: MSALTokenCacheDocument) -> [Account] {
        var found: [String: Account] = [:]
        for token in Self.idTokens(in: document, scope: scope).sorted(by: { $0.key < $1.key }) {
            let account = Account(claims: token.claims, homeAccountID: token.fields[string: "home_account_id"])
            // This library's own entry wins over an older or foreign one for the same person.
            if found[account.identifier] == nil || token.fields[Scope.authorityField] != nil {
                found[account.identifier] = account
            }
        }
        return found.values.sorted { $0.identifier < $1.identifier }
    }

    private func cachedAccount(_ account: Account, in document: MSALTokenCacheDocument) -> CachedAccount? {
        let scope = scope
        let owner = Self.owner(of: account, in: document, scope: scope)
        guard
            let token = Self.idTokens(in: document, scope: scope)
                .filter({
                    $0.fields[string: "home_account_id"] == owner.homeAccountID && $0.claims.subject == account.subject
                        && $0.claims.issuer == account.issuer
                })
                .min(by: { ($0.fields[Scope.authorityField] == nil ? 1 : 0, $0.key) < ($1.fields[Scope.authorityField] == nil ? 1 : 0, $1.key) })
        else { return nil }
        let accessTokens = document.entries(.accessToken)
            .filter { Self.belongs($0.fields, in: .accessToken, to: owner, scope: scope) }
            .compactMap { entry -> (scopes: [String], secret: String, expiresOn: Date, cachedAt: Int)? in
                guard let secret = entry.fields[string: "secret"], let expires = entry.fields[string: "expires_on"].flatMap(Int.init)
                else { return nil }
                let scopes = (entry.fields[string: "target"] ?? "").split(separator: " ").map(String.init)
                return (scopes, secret, Date(timeIntervalSince1970: TimeInterval(expires)), entry.fields[string: "cached_at"].flatMap(Int.init) ?? 0)
            }
            .sorted { ($0.expiresOn, $0.cachedAt) > ($1.expiresOn, $1.cachedAt) }
            .map { (scopes: $0.scopes, secret: $0.secret, expiresOn: $0.expiresOn) }
        let refreshToken = document.entries(.refreshToken)
            .filter { Self.belongs($0.fields, in: .refreshToken, to: owner, scope: scope) }
            .max { ($0.fields[string: "last_modification_time"].flatMap(Int.init) ?? 0) < ($1.fields[string: "last_modification_time"].flatMap(Int.init) ?? 0) }?
            .fields[string: "secret"]
        return CachedAccount(
            account: Account(claims: token.claims, homeAccountID: owner.homeAccountID), idToken: token.secret, idTokenClaims: token.claims,
            accessTokens: accessTokens, refreshToken: refreshToken)
    }

    /// A claim of the ID token that is a string (`tid`, `oid`, `upn`), if it has one.
    static func claim(_ name: String, of claims: IDTokenClaims) -> String? {
        (try? JSONSerialization.jsonObject(with: claims.json) as? [String: Any])?[name] as? String
    }

    /// The Microsoft Entra ID tenant the ID token was issued in (`tid`).
    static func tenant(of claims: IDTokenClaims) -> String? { claim("tid", of: claims) }

    /// The claims of a cached ID token: verified when it was stored, so only decoded here.
    static func claims(of idToken: String) -> IDTokenClaims? {
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]) else { return nil }
        return try? IDTokenClaims(json: payload)
    }

    /// Writes `entry` under MSAL's keys for this scope (see ``Scope``), each entry with this
    /// library's authority field; the account's other refresh tokens for this app are removed.
    static func write(_ entry: Entry, now: Date, scope: Scope, into document: inout MSALTokenCacheDocument) {
        let home = entry.account.homeAccountID
        let tag = JSONValue.string(scope.authority)
        let seconds = { (date: Date) in String(Int(date.timeIntervalSince1970.rounded(.down))) }
        let target = ScopeSet.normalized(entry.scopes).sorted().joined(separator: " ")
        document.put(
            .accessToken,
            key: MSALTokenCacheDocument.accessTokenKey(
                homeAccountID: home, environment: scope.environment, clientID: scope.clientID, realm: scope.realm, target: target),
            [
                "credential_type": .string("AccessToken"), "secret": .string(entry.accessToken), "home_account_id": .string(home),
                "environment": .string(scope.environment), "client_id": .string(scope.clientID), "target": .string(target),
                "realm": .string(scope.realm), "token_type": .string("Bearer"), "cached_at": .string(seconds(now)),
                "expires_on": .string(seconds(entry.expiresOn)), "extended_expires_on": .string(seconds(entry.expiresOn)),
                Scope.authorityField: tag,
            ])
        document.put(
            .idToken,
            key: MSALTokenCacheDocument.idTokenKey(homeAccountID: home, environment: scope.environment, clientID: scope.clientID, realm: scope.realm),
            [
                "credential_type": .string("IdToken"), "secret": .string(entry.idToken), "home_account_id": .string(home),
                "environment": .string(scope.environment), "realm": .string(scope.realm), "client_id": .string(scope.clientID),
                Scope.authorityField: tag,
            ])
        var account: MSALTokenCacheDocument.Fields = [
            "home_account_id": .string(home), "environment": .string(scope.environment), "realm": .string(scope.realm),
            // As msal-python: the object ID in Microsoft Entra ID, else the subject.
            "local_account_id": .string(claim("oid", of: entry.idTokenClaims) ?? entry.account.subject),
            "username": .string(entry.account.username ?? claim("upn", of: entry.idTokenClaims) ?? ""),
            // msal-python lists only MSSTS and ADFS accounts (ClientApplication.get_accounts); ADFS is its realm "adfs".
            "authority_type": .string(scope.realm.lowercased() == "adfs" ? "ADFS" : "MSSTS"),
            Scope.authorityField: tag,
        ]
        if let name = entry.account.name { account["name"] = .string(name) }
        document.put(.account, key: MSALTokenCacheDocument.accountKey(homeAccountID: home, environment: scope.environment, realm: scope.realm), account)
        if let refreshToken = entry.refreshToken {
            let owner = Owner(homeAccountID: home, tenant: tenant(of: entry.idTokenClaims))
            document.remove(.refreshToken) { belongs($0, in: .refreshToken, to: owner, scope: scope) }
            document.put(
                .refreshToken,
                key: MSALTokenCacheDocument.refreshTokenKey(homeAccountID: home, environment: scope.environment, clientID: scope.clientID, target: target),
                [
                    "credential_type": .string("RefreshToken"), "secret": .string(refreshToken), "home_account_id": .string(home),
                    "environment": .string(scope.environment), "client_id": .string(scope.clientID), "target": .string(target),
                    "last_modification_time": .string(seconds(now)), Scope.authorityField: tag,
                ])
        }
        document.put(
            .appMetadata, key: MSALTokenCacheDocument.appMetadataKey(environment: scope.environment, clientID: scope.clientID),
            ["client_id": .string(scope.clientID), "environment": .string(scope.environment)])
    }
}
