import Foundation
import WebviewHost

/// MSAL's unified cache format as this library reads and writes it: which entries belong to
/// an account of this app (see ``TokenCache/Scope``), and the entries one sign-in writes.
extension TokenCache {
    /// Who an account is in the cache: its `home_account_id` (the one its ID token is stored
    /// under, which is `<uid>.<utid>` for Microsoft Entra ID) and its `tid`, if any.
    struct Owner: Sendable {
        var homeAccountID: String
        var tenant: String?
    }

    /// The field of an account entry that keeps the claims of an account signed in without an ID
    /// token (the userinfo endpoint's, see ``TokenExchange``), base64url JSON. This library's own;
    /// MSAL's readers keep it and ignore it.
    static let userinfoClaimsField = "webviewhost_userinfo_claims"

    /// Who the accounts of this scope are, with their claims: the ID tokens
    /// (``Scope/owns(_:in:homeAccountID:tenant:)``), and the accounts signed in without one (their
    /// entry's ``userinfoClaimsField``, for this client), whose `secret` is empty.
    private typealias Identity = (key: String, fields: MSALTokenCacheDocument.Fields, secret: String, claims: IDTokenClaims)

    private static func idTokens(in document: MSALTokenCacheDocument, scope: Scope) -> [Identity] {
        let tokens = document.entries(.idToken).compactMap { key, fields -> Identity? in
            guard let home = fields[string: "home_account_id"], scope.owns(fields, in: .idToken, homeAccountID: home),
                let secret = fields[string: "secret"], let claims = claims(of: secret)
            else { return nil }
            return (key, fields, secret, claims)
        }
        let withoutIDToken = document.entries(.account).compactMap { key, fields -> Identity? in
            guard let home = fields[string: "home_account_id"], scope.owns(fields, in: .account, homeAccountID: home),
                let encoded = fields[string: userinfoClaimsField], let json = Base64URL.decode(encoded),
                let claims = try? IDTokenClaims(json: json), claims.audience.contains(scope.clientID), scope.issues(claims.issuer)
            else { return nil }
            return (key, fields, "", claims)
        }
        return tokens + withoutIDToken
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

    static func belongs(_ fields: MSALTokenCacheDocument.Fields, in section: MSALTokenCacheDocument.Section, to owner: Owner, scope: Scope) -> Bool {
        scope.owns(fields, in: section, homeAccountID: owner.homeAccountID, tenant: owner.tenant)
    }

    func accounts(in document: MSALTokenCacheDocument) -> [Account] {
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

    func cachedAccount(_ account: Account, in document: MSALTokenCacheDocument) -> CachedAccount? {
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
        let idTokenKey = MSALTokenCacheDocument.idTokenKey(
            homeAccountID: home, environment: scope.environment, clientID: scope.clientID, realm: scope.realm)
        if entry.hasIDToken {
            document.put(
                .idToken, key: idTokenKey,
                [
                    "credential_type": .string("IdToken"), "secret": .string(entry.idToken), "home_account_id": .string(home),
                    "environment": .string(scope.environment), "realm": .string(scope.realm), "client_id": .string(scope.clientID),
                    Scope.authorityField: tag,
                ])
        } else {
            // No ID token this time: an older one of this account must not stand for it.
            let owner = Owner(homeAccountID: home, tenant: tenant(of: entry.idTokenClaims))
            document.remove(.idToken) { belongs($0, in: .idToken, to: owner, scope: scope) }
        }
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
        if !entry.hasIDToken { account[userinfoClaimsField] = .string(Base64URL.encode(entry.idTokenClaims.json)) }
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
