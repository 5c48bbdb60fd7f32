/// A person signed in through SignIn's `PublicClientApplication`, from their verified ID token.
public struct Account: Hashable, Sendable, CustomStringConvertible {
    /// Stable and unique across providers: the subject and the issuer together.
    public let identifier: String
    /// The provider's identifier for the person (`sub`).
    public let subject: String
    /// What the person signs in with (`preferred_username`, else `email`), when the provider says.
    public let username: String?
    /// The person's display name (`name`).
    public let name: String?
    /// The provider that signed the person in (`iss`).
    public let issuer: String
    /// The account's `home_account_id` in MSAL's token cache, as MSAL computes it: `<uid>.<utid>`
    /// from the token endpoint's `client_info` (Microsoft Entra ID), else ``subject``.
    public let homeAccountID: String

    /// An account; `homeAccountID` defaults to `subject` (what MSAL uses when the provider sends no
    /// `client_info`). The token cache finds an account's tokens by subject and issuer, so an
    /// account made here finds the same tokens as the one a sign-in returned.
    public init(subject: String, issuer: String, username: String?, name: String?, homeAccountID: String? = nil) {
        self.subject = subject
        self.issuer = issuer
        self.username = username
        self.name = name
        self.homeAccountID = homeAccountID ?? subject
        identifier = "\(subject)@\(issuer)"
    }

    package init(claims: IDTokenClaims, homeAccountID: String? = nil) {
        self.init(
            subject: claims.subject, issuer: claims.issuer,
            username: claims.preferredUsername ?? claims.email, name: claims.name, homeAccountID: homeAccountID)
    }

    public var description: String { username ?? name ?? subject }
}
