/// The scenarios `EmbeddedScenariosGTK3` and `EmbeddedScenariosGTK4` run (the same ones, once per
/// toolkit), by the name on their command line.
public enum EmbeddedScenario: String, ScenarioName {
    case appAfter = "app-after"
    case appAfterHistory = "app-after-history"
    case appearance
    case handover
    case page
    case outcome
    case schemes
    case privateData = "private-data"
    case prewarm
    case prewarmForSession = "prewarm-for-session"
    case login
    case redirect
    case newWindows = "new-windows"
    case failure
    case secondSession = "second-session"
    case customView = "custom-view"
    case customViewAuthenticationSession = "custom-view-authentication-session"
    case cookies
    case cookieStep = "cookie-step"
    case slowPage = "slow-page"
    case broker
    case conformance
    /// Entra ID's device challenge (PKeyAuth): `<window|custom-view> <variant>` (PKeyAuthScenarios.swift).
    case pkeyAuth = "pkeyauth"
    case signInCookies = "sign-in-cookies"
    /// Windows Integrated Authentication: `<window|custom-view> <persistent|ephemeral> <base> <trust|no-trust> [basic|dialog]` (NegotiateScenarios.swift).
    case negotiate
    /// An endpoint requiring a client certificate: `<window|custom-view> <variant>` (ClientCertificateScenarios.swift).
    case clientCertificate = "client-certificate"
    case show
    case surface
    case webPlatform = "web-platform"
    case siteData = "site-data"
    case deviceCodeWindow = "device-code-window"
    case localizedWindows = "localized-windows"
    case accessibility
    case keyboard
    /// The app's proxy for the library's window, then a session without one: `<proxy URL> [<rounds>]` (ProxyScenarios.swift).
    case proxy
    /// A proxy that asks for a password, answered by the app: `<password>` (ProxyScenarios.swift).
    case proxyPassword = "proxy-password"
    /// An https sign-in page through the desktop's proxy whose URI carries its password (a CONNECT
    /// tunnel the proxy answers 407 first): `window` or `view` (ProxyScenarios.swift).
    case proxyTLS = "proxy-tls"
    case loadCancelledUnreplaced = "load-cancelled-unreplaced"
    case connectionDropped = "connection-dropped"
    /// A page calling the Web Authentication API, answered with a virtual authenticator: `<window|view> <variant>` (WebAuthnScenarios.swift).
    case webAuthn = "webauthn"
    /// A proxy that asks for a password, answered in the library's own dialog: `right <user> <password>`,
    /// `cancel`, `wrong-thrice <user>`, `wrong-once <user>` (ProxyScenarios.swift).
    case proxyPasswordDialog = "proxy-password-dialog"
    /// The provider's settings and the toolkit integration in two concurrent isolated scopes (IsolationScenarios.swift).
    case isolatedSettings = "isolated-settings"

    /// `nil`: the tests name the program of the toolkit they test.
    public static var program: String? { nil }
}
