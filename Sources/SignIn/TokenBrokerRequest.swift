public import WebviewHost

/// What a ``TokenBroker`` token call asks for.
public struct TokenBrokerRequest: Sendable {
    /// The app and authority.
    public var client: TokenBrokerClient
    /// The scopes the access token is for, as the app asked for them (the configuration's default
    /// scopes only when the app asked for none).
    public var scopes: [String]
    /// The account signed in earlier (silent calls; an interactive call may carry one as a hint).
    public var account: Account?
    /// The username to suggest.
    public var loginHint: String?
    /// Whether the broker must ask the person again.
    public var prompt: Prompt?
    /// The app window the broker's UI belongs to (a `GtkWindow *`); a broker turns it into the
    /// handle it takes (Microsoft's: an X11 window id) on the main thread.
    public var parentWindow: WindowHandle?
    /// Renew even when the broker holds a valid token.
    public var forceRefresh: Bool

    public init(
        client: TokenBrokerClient, scopes: [String], account: Account? = nil, loginHint: String? = nil,
        prompt: Prompt? = nil, parentWindow: WindowHandle? = nil, forceRefresh: Bool = false
    ) {
        self.client = client
        self.scopes = scopes
        self.account = account
        self.loginHint = loginHint
        self.prompt = prompt
        self.parentWindow = parentWindow
        self.forceRefresh = forceRefresh
    }
}
