import Foundation

/// What ``TokenCache`` reads and writes for one account.
extension TokenCache {
    /// The tokens of one account for one set of scopes.
    struct Entry: Sendable {
        var account: Account
        var scopes: [String]
        var accessToken: String
        var expiresOn: Date
        var idToken: String
        var idTokenClaims: IDTokenClaims
        var refreshToken: String?

        /// Whether the provider issued an ID token (the device grant of some providers does not:
        /// ``idToken`` is then empty and ``idTokenClaims`` came from the userinfo endpoint).
        var hasIDToken: Bool { !idToken.isEmpty }

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
}
