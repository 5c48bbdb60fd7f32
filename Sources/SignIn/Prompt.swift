/// The OpenID Connect `prompt` parameter: whether the provider must ask the person again.
///
/// The embedded view keeps the provider's session in its persistent cookies (and the person's
/// browser in its own), so without a `prompt` a second sign-in usually goes through without a
/// password, as the same person. What each value does to such a remembered session:
///
/// | prompt | the remembered session | use it to |
/// |---|---|---|
/// | none given | reused: no page, or the provider's "continue as …" | sign the same person in again |
/// | ``login`` | ignored: the credentials form, whoever was signed in | switch to another account, add a second one |
/// | ``selectAccount`` | offered among the provider's accounts (Entra ID, Google; others may ignore it) | let the person pick |
/// | ``consent`` | reused for who, but the consent page shows | ask for new scopes again |
/// | ``none`` | reused, or the sign-in fails with `interactionRequired` | check silently in a view |
///
/// `loginHint` prefills the username (and Entra ID picks that account). Ending the session for
/// good is ``PublicClientApplication/signOut(_:with:)`` with ``SignOutParameters/Reach/identityProvider``.
public struct Prompt: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Show no page; the provider answers `login_required` or `interaction_required` when it must ask.
    public static let none = Prompt(rawValue: "none")
    /// Ask for credentials even when a session exists.
    public static let login = Prompt(rawValue: "login")
    /// Ask for consent even when it was given before.
    public static let consent = Prompt(rawValue: "consent")
    /// Let the person choose among their accounts.
    public static let selectAccount = Prompt(rawValue: "select_account")

    public var description: String { rawValue }
}
