/// Which web user agent runs the sign-in, as MSAL's `MSALWebviewType` chooses it.
public enum WebviewType: Hashable, Sendable, CustomStringConvertible {
    /// Let the ``WebviewSelectionPolicy`` choose from the environment (the person's browser where one exists).
    case `default`
    /// The person's own browser only; fails with `providerUnavailable` when it cannot run.
    case authenticationSession
    /// An embedded WebKitGTK view: a window the library owns, or the caller's `customWebview`.
    case embedded
    /// Any registered provider, by identifier.
    case provider(WebviewProviderID)

    public var description: String {
        switch self {
        case .default: "default"
        case .authenticationSession: "authenticationSession"
        case .embedded: "embedded"
        case .provider(let id): "provider(\(id))"
        }
    }
}
