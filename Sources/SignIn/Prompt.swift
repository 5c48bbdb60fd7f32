/// The OpenID Connect `prompt` parameter: whether the provider must ask the person again.
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
