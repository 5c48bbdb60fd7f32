/// A person signed in through a ``PublicClientApplication``, from their verified ID token.
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

    public init(subject: String, issuer: String, username: String?, name: String?) {
        self.subject = subject
        self.issuer = issuer
        self.username = username
        self.name = name
        identifier = "\(subject)@\(issuer)"
    }

    init(claims: IDTokenClaims) {
        self.init(
            subject: claims.subject, issuer: claims.issuer,
            username: claims.preferredUsername ?? claims.email, name: claims.name)
    }

    public var description: String { username ?? name ?? subject }
}
