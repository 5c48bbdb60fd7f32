import Foundation
import Testing
import WebviewHost

@testable import SignIn
@testable import TokenCache

/// MSAL's cache keys for every authority shape, checked against msal-python itself
/// (`Tests/Fixtures/TokenCache/msal_interop.py write`, msal 1.39.0 from `.ci/install`): for each shape,
/// msal-python and this library write the same account, and the keys of every section must be
/// the same strings; then each side reads the other's file.
@Suite struct MSALCacheKeyTests {
    /// One authority as an app configures it, with what its provider answers.
    struct Shape: Sendable, CustomTestStringConvertible {
        let name: String
        /// This library's authority (the issuer URL its discovery reads).
        let authority: String
        /// The token endpoint its discovery document names (msal-python takes the realm from it).
        let tokenEndpoint: String
        /// The ID token's `iss`.
        let issuer: String
        var tenant: String? = nil
        var objectID: String? = nil
        /// `uid.utid` sent as `client_info` (Microsoft Entra ID).
        var clientInfo: String? = nil
        let environment: String
        let realm: String

        var testDescription: String { name }
    }

    static let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let objectID = "00000000-0000-0000-66f3-3332eca7ea81"
    static let entraIssuer = "https://login.microsoftonline.com/\(tenant)/v2.0"

    static let shapes: [Shape] = [
        Shape(
            name: "Microsoft Entra ID, a tenant ID, client_info", authority: "https://login.microsoftonline.com/\(tenant)/v2.0",
            tokenEndpoint: "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/token", issuer: entraIssuer, tenant: tenant,
            objectID: objectID, clientInfo: "\(objectID).\(tenant)", environment: "login.microsoftonline.com", realm: tenant),
        Shape(
            name: "Microsoft Entra ID, a domain tenant (the token endpoint names its ID)",
            authority: "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0",
            tokenEndpoint: "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/token", issuer: entraIssuer, tenant: tenant,
            objectID: objectID, clientInfo: "\(objectID).\(tenant)", environment: "login.microsoftonline.com", realm: tenant),
        Shape(
            name: "Microsoft Entra ID, common, client_info", authority: "https://login.microsoftonline.com/common/v2.0",
            tokenEndpoint: "https://login.microsoftonline.com/common/oauth2/v2.0/token", issuer: entraIssuer, tenant: tenant,
            objectID: objectID, clientInfo: "\(objectID).\(tenant)", environment: "login.microsoftonline.com", realm: "common"),
        Shape(
            name: "Microsoft Entra ID, organizations, client_info", authority: "https://login.microsoftonline.com/organizations/v2.0",
            tokenEndpoint: "https://login.microsoftonline.com/organizations/oauth2/v2.0/token", issuer: entraIssuer, tenant: tenant,
            objectID: objectID, clientInfo: "\(objectID).\(tenant)", environment: "login.microsoftonline.com", realm: "organizations"),
        Shape(
            name: "Microsoft Entra ID, a guest (home tenant differs)", authority: "https://login.microsoftonline.com/common/v2.0",
            tokenEndpoint: "https://login.microsoftonline.com/common/oauth2/v2.0/token", issuer: entraIssuer, tenant: tenant,
            objectID: objectID, clientInfo: "11111111-2222-3333-4444-555555555555.9188040d-6c67-4c5b-b112-36a304b66dad",
            environment: "login.microsoftonline.com", realm: "common"),
        Shape(
            name: "Keycloak realm", authority: "https://sso.example.org/realms/acme",
            tokenEndpoint: "https://sso.example.org/realms/acme/protocol/openid-connect/token", issuer: "https://sso.example.org/realms/acme",
            environment: "sso.example.org", realm: "realms"),
        Shape(
            name: "Keycloak realm, a trailing slash", authority: "https://sso.example.org/realms/acme/",
            tokenEndpoint: "https://sso.example.org/realms/acme/protocol/openid-connect/token", issuer: "https://sso.example.org/realms/acme",
            environment: "sso.example.org", realm: "realms"),
        Shape(
            name: "A host with a port, two path segments", authority: "https://IdP.Example.org:8443/api/oidc",
            tokenEndpoint: "https://idp.example.org:8443/api/oidc/token", issuer: "https://idp.example.org:8443/api/oidc",
            environment: "idp.example.org", realm: "api"),
    ]

    let clientID = "msal-keys-tests"
    let scopes = ["openid", "profile", "offline_access", "User.Read"]

    func scope(_ shape: Shape) -> TokenCache.Scope {
        TokenCache.Scope(clientID: clientID, authority: URL(string: shape.authority)!).usingTokenEndpoint(URL(string: shape.tokenEndpoint)!)
    }

    func entry(_ shape: Shape, subject: String, accessToken: String, refreshToken: String) throws -> TokenCache.Entry {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any] = [
            "iss": shape.issuer, "sub": subject, "aud": clientID, "iat": now, "exp": now + 3600,
            "preferred_username": "dana@example.com", "name": "Dana Example",
        ]
        claims["tid"] = shape.tenant
        claims["oid"] = shape.objectID
        let token = TestTokenSigner.token(claims)
        let decoded = try #require(TokenCache.claims(of: token))
        // As the sign-in does: the account is keyed by client_info when the token endpoint sent it.
        let clientInfo = shape.clientInfo.map { info -> String in
            let parts = info.split(separator: ".").map(String.init)
            return Base64URL.encode(try! JSONSerialization.data(withJSONObject: ["uid": parts[0], "utid": parts[1]]))
        }
        return TokenCache.Entry(
            account: Account(claims: decoded, homeAccountID: clientInfo.flatMap(ClientInfo.init(encoded:))?.homeAccountID),
            scopes: scopes, accessToken: accessToken, expiresOn: Date().addingTimeInterval(3600), idToken: token, idTokenClaims: decoded,
            refreshToken: refreshToken)
    }

    func msalPythonWrites(_ shape: Shape, subject: String, to file: URL) async throws -> [String: Any] {
        var arguments = [
            "write", file.path, "--authority", shape.authority, "--client-id", clientID, "--token-endpoint", shape.tokenEndpoint,
            "--issuer", shape.issuer, "--sub", subject,
        ]
        if let tenant = shape.tenant { arguments += ["--tid", tenant] }
        if let objectID = shape.objectID { arguments += ["--oid", objectID] }
        if let clientInfo = shape.clientInfo { arguments += ["--client-info", clientInfo] }
        return try await TokenCacheScenario.msalPython(arguments)
    }

    func keys(of document: MSALTokenCacheDocument) -> [String: [String]] {
        var keys: [String: [String]] = [:]
        for section in MSALTokenCacheDocument.Section.allCases {
            let found = document.entries(section).map(\.key).sorted()
            if !found.isEmpty { keys[section.rawValue] = found }
        }
        return keys
    }

    @Test(arguments: shapes)
    func weWriteTheKeysMSALPythonWrites(_ shape: Shape) async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let theirs = directory.appendingPathComponent("msal-python.json")
        let written = try await msalPythonWrites(shape, subject: "sub-dana", to: theirs)
        let theirKeys = try #require(written["keys"] as? [String: [String]])

        let storage = InMemoryTokenCacheStorage()
        let cache = TokenCache(storage: storage, scope: scope(shape))
        let stored = try entry(shape, subject: "sub-dana", accessToken: "at-ours", refreshToken: "rt-ours")
        try await cache.store(stored, now: Date())
        let document = MSALTokenCacheDocument(data: try storage.load())
        #expect(keys(of: document) == theirKeys)

        let account = try #require(document.entries(.account).first?.fields)
        #expect(account[string: "environment"] == shape.environment)
        #expect(account[string: "realm"] == shape.realm)
        #expect(account[string: "home_account_id"] == (shape.clientInfo ?? "sub-dana"))
        #expect(account[string: "local_account_id"] == (shape.objectID ?? "sub-dana"))
        // What MSAL's keys leave out, in the field MSAL ignores.
        var authority = shape.authority.lowercased()
        if authority.hasSuffix("/") { authority.removeLast() }
        #expect(account[string: TokenCache.Scope.authorityField] == authority)
    }

    @Test(arguments: shapes)
    func weReadWhatMSALPythonWroteAndItReadsWhatWeWrote(_ shape: Shape) async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let theirs = directory.appendingPathComponent("msal-python.json")
        let written = try await msalPythonWrites(shape, subject: "sub-erin", to: theirs)

        // A fresh process before discovery: the scope knows only the authority.
        let cache = TokenCache(storage: FileTokenCacheStorage(fileURL: theirs), scope: .init(clientID: clientID, authority: URL(string: shape.authority)!))
        let accounts = try await cache.accounts()
        #expect(accounts.map(\.subject) == ["sub-erin"])
        #expect(accounts.first?.homeAccountID == (shape.clientInfo ?? "sub-erin"))
        let account = try #require(accounts.first)
        let cached = try #require(try await cache.cachedAccount(account))
        #expect(TokenCacheScenario.fingerprint(cached.refreshToken) == written["refresh_token"] as? String)
        #expect(TokenCacheScenario.fingerprint(cached.entry(covering: ["User.Read"])?.accessToken) == written["access_token"] as? String)

        // msal-python finds the account, refresh token and access token we wrote.
        let ours = directory.appendingPathComponent("ours.json")
        let ourCache = TokenCache(storage: FileTokenCacheStorage(fileURL: ours), scope: scope(shape))
        try await ourCache.store(try entry(shape, subject: "sub-finn", accessToken: "at-finn", refreshToken: "rt-finn"), now: Date())
        let home = shape.clientInfo ?? "sub-finn"
        let found = try await TokenCacheScenario.msalPython(["read", ours.path, "--home-account-id", home, "--client-id", clientID])
        let foundAccounts = try #require(found["accounts"] as? [[String: Any]])
        #expect(foundAccounts.map { $0["environment"] as? String } == [shape.environment])
        #expect(foundAccounts.map { $0["realm"] as? String } == [shape.realm])
        #expect((found["refresh_tokens"] as? [[String: Any]])?.map { $0["secret"] as? String } == [TokenCacheScenario.fingerprint("rt-finn")])
        #expect((found["access_tokens"] as? [[String: Any]])?.map { $0["secret"] as? String } == [TokenCacheScenario.fingerprint("at-finn")])
    }

    // MARK: - What MSAL's keys cannot tell apart

    func keycloak(_ realm: String) -> Shape {
        Shape(
            name: realm, authority: "https://sso.example.org/realms/\(realm)",
            tokenEndpoint: "https://sso.example.org/realms/\(realm)/protocol/openid-connect/token",
            issuer: "https://sso.example.org/realms/\(realm)", environment: "sso.example.org", realm: "realms")
    }

    @Test func twoRealmsOnOneHostKeepTheirAccountsApart() async throws {
        let storage = InMemoryTokenCacheStorage()
        let (a, b) = (keycloak("a"), keycloak("b"))
        let cacheA = TokenCache(storage: storage, scope: scope(a))
        let cacheB = TokenCache(storage: storage, scope: scope(b))
        #expect(cacheA.scope.environment == cacheB.scope.environment && cacheA.scope.realm == cacheB.scope.realm, "MSAL's keys are the same")
        let inA = try entry(a, subject: "user-in-a", accessToken: "at-a", refreshToken: "rt-a")
        let inB = try entry(b, subject: "user-in-b", accessToken: "at-b", refreshToken: "rt-b")
        try await cacheA.store(inA, now: Date())
        try await cacheB.store(inB, now: Date())
        #expect(try await cacheA.accounts() == [inA.account])
        #expect(try await cacheB.accounts() == [inB.account])
        #expect(try await cacheA.cachedAccount(inB.account) == nil)
        #expect(try await cacheA.cachedAccount(inA.account)?.refreshToken == "rt-a")
        #expect(try await cacheB.cachedAccount(inB.account)?.refreshToken == "rt-b")
        // Removing in one realm leaves the other alone.
        #expect(try await cacheA.remove(inA.account))
        #expect(try await cacheB.cachedAccount(inB.account)?.refreshToken == "rt-b")
    }

    @Test func theSameSubjectInTwoRealmsNeverGetsTheOthersTokens() async throws {
        // MSAL's keys collide (same home_account_id, environment and realm): the later write wins
        // the slot, and the other realm's app finds nothing rather than a stranger's tokens.
        let storage = InMemoryTokenCacheStorage()
        let (a, b) = (keycloak("a"), keycloak("b"))
        let cacheA = TokenCache(storage: storage, scope: scope(a))
        let cacheB = TokenCache(storage: storage, scope: scope(b))
        let inA = try entry(a, subject: "same", accessToken: "at-a", refreshToken: "rt-a")
        let inB = try entry(b, subject: "same", accessToken: "at-b", refreshToken: "rt-b")
        try await cacheA.store(inA, now: Date())
        try await cacheB.store(inB, now: Date())
        #expect(try await cacheA.accounts().isEmpty)
        let seenByA = try await cacheA.cachedAccount(inA.account)
        #expect(seenByA == nil || seenByA?.refreshToken == "rt-a")
        #expect(try await cacheB.cachedAccount(inB.account)?.refreshToken == "rt-b")
    }

    // MARK: - Caches of earlier versions

    @Test func aCacheWrittenWithTheEarlierKeysIsStillRead() async throws {
        // What this library wrote before it followed MSAL's keys: environment with the port, the whole path as realm.
        let shape = Self.shapes.last!
        let stored = try entry(shape, subject: "old-timer", accessToken: "at-old", refreshToken: "rt-old")
        let expires = String(Int(Date().timeIntervalSince1970) + 3600)
        let old = """
            {"AccessToken": {"old-timer-idp.example.org:8443-accesstoken-\(clientID)-api/oidc-offline_access openid profile user.read": {
                "credential_type": "AccessToken", "secret": "at-old", "home_account_id": "old-timer", "environment": "idp.example.org:8443",
                "client_id": "\(clientID)", "target": "User.Read offline_access openid profile", "realm": "api/oidc", "cached_at": "1",
                "expires_on": "\(expires)"}},
             "IdToken": {"old-timer-idp.example.org:8443-idtoken-\(clientID)-api/oidc-": {"credential_type": "IdToken",
                "secret": "\(stored.idToken)", "home_account_id": "old-timer", "environment": "idp.example.org:8443", "realm": "api/oidc",
                "client_id": "\(clientID)"}},
             "RefreshToken": {"old-timer-idp.example.org:8443-refreshtoken-\(clientID)--offline_access openid profile user.read": {
                "credential_type": "RefreshToken", "secret": "rt-old", "home_account_id": "old-timer", "environment": "idp.example.org:8443",
                "client_id": "\(clientID)", "target": "User.Read offline_access openid profile"}}}
            """
        let storage = InMemoryTokenCacheStorage()
        try storage.save(Data(old.utf8))
        let cache = TokenCache(storage: storage, scope: .init(clientID: clientID, authority: URL(string: shape.authority)!))
        #expect(try await cache.accounts() == [stored.account])
        let cached = try #require(try await cache.cachedAccount(stored.account))
        #expect(cached.refreshToken == "rt-old")
        #expect(cached.entry(covering: ["User.Read"])?.accessToken == "at-old")
        // The next write is in MSAL's keys, and the old refresh token is replaced.
        try await cache.store(try entry(shape, subject: "old-timer", accessToken: "at-new", refreshToken: "rt-new"), now: Date())
        let document = MSALTokenCacheDocument(data: try storage.load())
        #expect(document.entries(.refreshToken).map(\.key) == ["old-timer-idp.example.org-refreshtoken-\(clientID)--user.read offline_access openid profile"])
        #expect(try await cache.cachedAccount(stored.account)?.refreshToken == "rt-new")
    }

    @Test func aCacheMSALNETWroteForTheSameCloudIsRead() async throws {
        // MSAL.NET writes the public cloud's "preferred cache" host and the tenant ID as realm.
        let shape = Self.shapes[2]  // common
        let stored = try entry(shape, subject: "sub-gil", accessToken: "at-net", refreshToken: "rt-net")
        var document = MSALTokenCacheDocument()
        let alias = TokenCache.Scope(clientID: clientID, authority: URL(string: "https://login.windows.net/\(Self.tenant)")!)
        TokenCache.write(stored, now: Date(), scope: alias, into: &document)
        var stripped = MSALTokenCacheDocument()  // as MSAL.NET writes it: no field of ours
        for section in MSALTokenCacheDocument.Section.allCases {
            for (key, fields) in document.entries(section) { stripped.put(section, key: key, fields.filter { $0.key != TokenCache.Scope.authorityField }) }
        }
        let storage = InMemoryTokenCacheStorage()
        try storage.save(stripped.serialized())
        let cache = TokenCache(storage: storage, scope: scope(shape))
        #expect(try await cache.accounts().map { $0.homeAccountID } == [shape.clientInfo!])
        let cached = try #require(try await cache.cachedAccount(stored.account))
        #expect(cached.refreshToken == "rt-net")
        #expect(cached.entry(covering: ["User.Read"])?.accessToken == "at-net", "the tenant ID is a realm MSAL.NET writes for common")
    }

    @Test func anAccessTokenWithoutARealmIsRead() async throws {
        // MSAL.NET does not tenant a generic OIDC authority: its access tokens have an empty realm.
        let shape = keycloak("acme")
        let stored = try entry(shape, subject: "sub-hal", accessToken: "at-generic", refreshToken: "rt-generic")
        var document = MSALTokenCacheDocument()
        TokenCache.write(stored, now: Date(), scope: scope(shape), into: &document)
        var stripped = MSALTokenCacheDocument()
        for section in MSALTokenCacheDocument.Section.allCases {
            for (key, fields) in document.entries(section) {
                var fields = fields.filter { $0.key != TokenCache.Scope.authorityField }
                if section == .accessToken { fields["realm"] = .string("") }
                stripped.put(section, key: key, fields)
            }
        }
        let storage = InMemoryTokenCacheStorage()
        try storage.save(stripped.serialized())
        let cache = TokenCache(storage: storage, scope: scope(shape))
        #expect(try await cache.cachedAccount(stored.account)?.entry(covering: ["User.Read"])?.accessToken == "at-generic")
        // Another realm of the host does not take it: its ID token names another issuer.
        let other = TokenCache(storage: storage, scope: scope(keycloak("other")))
        #expect(try await other.accounts().isEmpty)
    }

    // MARK: - client_info

    @Test(arguments: [
        (#"{"uid":"u-1","utid":"t-1"}"#, "u-1.t-1"),
        (#"{"uid":"u-1","utid":"t-1","extra":1}"#, "u-1.t-1"),
        (#"{"uid":"u-1"}"#, nil),
        (#"{"uid":1,"utid":"t"}"#, nil),
        ("not json", nil),
    ] as [(String, String?)])
    func clientInfoKeysTheAccountAsMSALDoes(_ json: String, _ homeAccountID: String?) {
        let unpadded = Base64URL.encode(Data(json.utf8))
        #expect(ClientInfo(encoded: unpadded)?.homeAccountID == homeAccountID)
        #expect(ClientInfo(encoded: Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"))?.homeAccountID == homeAccountID, "padded")
    }

    @Test func clientInfoIsRequestedOnlyWhenAsked() throws {
        let redirect = URL(string: "http://127.0.0.1:1234/cb")!
        let entra = try AuthorizationRequest(clientID: "c", redirectURI: redirect, scopes: [], clientInfo: true)
        let other = try AuthorizationRequest(clientID: "c", redirectURI: redirect, scopes: [])
        #expect(entra.parameters.filter { $0.0 == "client_info" }.map(\.1) == ["1"])
        #expect(!other.parameters.contains { $0.0 == "client_info" })
        #expect(throws: WebAuthError.self) { try AuthorizationRequest(clientID: "c", redirectURI: redirect, scopes: [], extraParameters: ["client_info": "1"]) }
    }

    @Test(arguments: [
        ("login.microsoftonline.com", true), ("login.windows.net", true), ("login.microsoftonline.us", true),
        ("contoso.ciamlogin.com", true), ("contoso.b2clogin.com", true), ("sso.example.org", false), ("127.0.0.1", false),
        ("evil-login.microsoftonline.com.example", false),
    ])
    func microsoftEntraHostsGetClientInfo(_ host: String, _ isEntra: Bool) {
        #expect(MicrosoftEntraHosts.contains(host) == isEntra)
    }
}
