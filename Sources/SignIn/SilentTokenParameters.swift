/// What a silent token request asks for (MSAL's `MSALSilentTokenParameters`).
public struct SilentTokenParameters: Sendable {
    /// The scopes the access token is for; the configuration's default scopes are added.
    public var scopes: [String]
    /// The account signed in earlier: in this process, or in an earlier run (see
    /// ``PublicClientApplication/allAccounts()``), through the token cache.
    public var account: Account
    /// Renew with the refresh token even when the cached access token is still valid.
    public var forceRefresh: Bool

    public init(scopes: [String], account: Account, forceRefresh: Bool = false) {
        self.scopes = scopes
        self.account = account
        self.forceRefresh = forceRefresh
    }
}
