public import WebviewHost

/// What an interactive sign-in asks for (MSAL's `MSALInteractiveTokenParameters`).
public struct InteractiveTokenParameters: Sendable {
    /// The scopes the access token is for; the configuration's default scopes are added.
    public var scopes: [String]
    /// How the sign-in page is shown.
    public var webviewParameters: WebviewParameters
    /// Whether the provider must ask again; `nil` sends no `prompt`.
    public var prompt: Prompt?
    /// The username to fill in (`login_hint`).
    public var loginHint: String?
    /// More authorization request parameters. A name the library sends itself
    /// (`client_id`, `state`, `nonce`...) is refused with `invalidParameters`.
    public var extraQueryParameters: [String: String]
    /// This call's own steps, on the main actor, in order: every event of every session the call
    /// runs (with its session and view, ``WebviewHost/WebAuthStep``), and never another call's. Set
    /// it to show progress for this sign-in only; `WebAuthSession.observeAll(_:)` and the
    /// `webAuth*` notifications see every session in the process.
    ///
    /// ```swift
    /// parameters.onStep = { step in
    ///     if case .didFinishLoad = step.event { spinner.stop() }
    /// }
    /// ```
    public var onStep: (@MainActor @Sendable (WebAuthStep) -> Void)?

    public init(
        scopes: [String],
        webviewParameters: WebviewParameters = .init(),
        prompt: Prompt? = nil,
        loginHint: String? = nil,
        extraQueryParameters: [String: String] = [:]
    ) {
        self.scopes = scopes
        self.webviewParameters = webviewParameters
        self.prompt = prompt
        self.loginHint = loginHint
        self.extraQueryParameters = extraQueryParameters
    }
}
