public import Foundation

/// The tokens a ``TokenBroker`` returned. The broker keeps its refresh token to itself.
public struct TokenBrokerResult: Sendable {
    public var accessToken: String
    /// When ``accessToken`` expires.
    public var expiresOn: Date
    /// The scopes granted.
    public var scopes: [String]
    /// The ID token (a JWS). The broker is trusted: its claims are read, its signature is not
    /// checked again.
    public var idToken: String
    /// Who signed in, as the broker names the account (see ``TokenBroker/accounts(for:)``).
    public var account: Account

    public init(accessToken: String, expiresOn: Date, scopes: [String], idToken: String, account: Account) {
        self.accessToken = accessToken
        self.expiresOn = expiresOn
        self.scopes = scopes
        self.idToken = idToken
        self.account = account
    }
}
