package import Foundation

/// What ``TokenCache`` reads and writes for one account.
extension TokenCache {
    /// The tokens of one account for one set of scopes.
    package struct Entry: Sendable {
        package var account: Account
        package var scopes: [String]
        package var accessToken: String
        package var expiresOn: Date
        package var idToken: String
        package var idTokenClaims: IDTokenClaims
        package var refreshToken: String?

        package init(
            account: Account, scopes: [String], accessToken: String, expiresOn: Date, idToken: String, idTokenClaims: IDTokenClaims,
            refreshToken: String?
        ) {
            self.account = account
            self.scopes = scopes
            self.accessToken = accessToken
            self.expiresOn = expiresOn
            self.idToken = idToken
            self.idTokenClaims = idTokenClaims
            self.refreshToken = refreshToken
        }

        /// Whether the provider issued an ID token (the device grant of some providers does not:
        /// ``idToken`` is then empty and ``idTokenClaims`` came from the userinfo endpoint).
        package var hasIDToken: Bool { !idToken.isEmpty }

        package var result: AuthenticationResult {
            AuthenticationResult(
                accessToken: accessToken, expiresOn: expiresOn, scopes: scopes, idToken: idToken,
                idTokenClaims: idTokenClaims, refreshToken: refreshToken, account: account)
        }

        package func covers(_ requested: [String]) -> Bool {
            Set(requested).isSubset(of: Set(scopes))
        }
    }

    /// What the store holds for one account of this app.
    package struct CachedAccount: Sendable {
        package var account: Account
        package var idToken: String
        package var idTokenClaims: IDTokenClaims
        /// Access tokens, the one that expires last first.
        package var accessTokens: [(scopes: [String], secret: String, expiresOn: Date)]
        package var refreshToken: String?

        /// The access token whose scopes hold all of `scopes` and that expires last, as an entry.
        package func entry(covering scopes: [String]) -> Entry? {
            guard let token = accessTokens.first(where: { Set(scopes).isSubset(of: Set($0.scopes)) }) else { return nil }
            return Entry(
                account: account, scopes: token.scopes, accessToken: token.secret, expiresOn: token.expiresOn,
                idToken: idToken, idTokenClaims: idTokenClaims, refreshToken: refreshToken)
        }
    }
}
