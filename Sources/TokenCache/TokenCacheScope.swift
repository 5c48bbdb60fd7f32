package import Foundation

extension TokenCache {
    /// Which part of a (possibly shared) MSAL cache belongs to this app and its provider, and the
    /// fields MSAL keys its entries by.
    ///
    /// The rules are msal-python 1.39.0's (`authority.canonicalize`, `TokenCache.key_makers` and
    /// `__add` in `token_cache.py`), which MSAL.NET shares for a tenanted Microsoft Entra ID authority:
    /// - `environment`: the authority's host, lowercased, without its port;
    /// - `realm`: the first segment of the authority's path (`common`, a tenant, `realms` for
    ///   Keycloak's `/realms/<name>`, `api` for `/api/oidc`); empty when the path is;
    /// - `home_account_id`: `<uid>.<utid>` from `client_info`, else the ID token's `sub`.
    ///
    /// What those keys cannot tell apart (a port, the path after its first segment: two Keycloak
    /// realms on one host) goes into ``authorityField`` of every entry this library writes, which
    /// MSAL ignores; an entry that carries it belongs to this scope only when it names this
    /// authority. Entries without it (written by MSAL, or by earlier versions of this library) are
    /// matched by MSAL's keys, and their ID token's issuer must be this authority (any issuer for
    /// Microsoft Entra ID, whose `common` and `organizations` issue per-tenant tokens).
    ///
    /// Read as well: the other hosts of a Microsoft Entra ID cloud (MSAL.NET writes
    /// `login.windows.net` for `login.microsoftonline.com`), `host:port` and the whole path as
    /// realm (what this library wrote before it followed MSAL's keys), and for access tokens the
    /// ID token's `tid` as realm (MSAL.NET's realm for `common` and `organizations`) and an empty
    /// realm (MSAL.NET's for a generic OIDC authority, which it does not tenant).
    package struct Scope: Sendable {
        /// The field this library adds to each entry it writes: ``authority``.
        static let authorityField = "webviewhost_authority"

        let clientID: String
        /// MSAL's `environment`.
        let environment: String
        /// MSAL's `realm`: the first path segment of the token endpoint once discovery has run
        /// (msal-python's rule: Microsoft Entra ID answers a domain-name tenant with the tenant
        /// ID there), of the authority until then.
        private(set) var realm: String
        /// The token endpoint's realm, once known.
        private(set) var tokenEndpointRealm: String?
        /// The authority as ``authorityField`` holds it: scheme, lowercased host, port when it has
        /// one, path without a trailing slash.
        let authority: String
        /// Whether the authority is Microsoft Entra ID's (by its host).
        let isMicrosoftEntra: Bool
        /// The `environment`s whose entries are read as this one's.
        let readableEnvironments: Set<String>
        /// The realms whose access tokens are read as this one's (besides the ID token's `tid`).
        private(set) var readableRealms: Set<String>

        package init(clientID: String, authority url: URL) {
            self.clientID = clientID
            let host = (url.host ?? "").lowercased()
            let segments = url.path.split(separator: "/").map(String.init)
            environment = host
            realm = segments.first ?? ""
            let hostAndPort = url.port.map { "\(host):\($0)" } ?? host
            authority = "\((url.scheme ?? "https").lowercased())://\(hostAndPort)" + segments.map { "/\($0)" }.joined()
            isMicrosoftEntra = MicrosoftEntraHosts.contains(host)
            readableEnvironments = Set(MicrosoftEntraHosts.aliases(of: host) + [hostAndPort])
            readableRealms = [realm, segments.joined(separator: "/"), ""]
        }

        /// This scope with MSAL's realm taken from `tokenEndpoint` (its first path segment, when it
        /// has one); the authority's realm stays readable.
        func usingTokenEndpoint(_ tokenEndpoint: URL) -> Scope {
            guard let first = tokenEndpoint.path.split(separator: "/").first.map(String.init) else { return self }
            var scope = self
            scope.realm = first
            scope.tokenEndpointRealm = first
            scope.readableRealms.insert(first)
            return scope
        }

        /// Whether `issuer` (an ID token's `iss`) is this authority's.
        func issues(_ issuer: String) -> Bool {
            guard !isMicrosoftEntra else { return true }
            guard let url = URL(string: issuer) else { return false }
            return Scope(clientID: clientID, authority: url).authority == authority
        }

        /// Whether an entry of `section` belongs to this scope and to the account keyed
        /// `homeAccountID` (by MSAL's keys, and ``authorityField`` when the entry has it).
        /// `tenant` is the account's `tid`, the realm MSAL.NET writes for `common`.
        func owns(_ fields: MSALTokenCacheDocument.Fields, in section: MSALTokenCacheDocument.Section, homeAccountID: String, tenant: String? = nil)
            -> Bool
        {
            guard fields[string: "home_account_id"] == homeAccountID,
                let environment = fields[string: "environment"], readableEnvironments.contains(environment.lowercased()),
                section == .account || fields[string: "client_id"] == clientID
            else { return false }
            if let tag = fields[Self.authorityField] { return tag.string == authority }
            switch section {
            case .accessToken, .account:
                let realm = fields[string: "realm"] ?? ""
                return readableRealms.contains(realm) || (tenant.map { $0 == realm } ?? false)
            case .idToken:
                return fields[string: "secret"].flatMap(TokenCache.claims(of:)).map { issues($0.issuer) } ?? false
            default:
                return true  // refresh tokens are realm-independent in MSAL
            }
        }
    }
}
