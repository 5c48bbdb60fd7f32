/// The scenarios `SignInScenarios` runs, by the name on its command line.
public enum SignInScenario: String, ScenarioName {
    case embeddedWindow = "embedded-window"
    case embeddedCustomView = "embedded-custom-view"
    case systemBrowser = "system-browser"
    case embeddedHandOver = "embedded-hand-over"
    case silentFromStore = "silent-from-store"
    case help
    case schemeRegistration = "scheme-registration"
    case signOut = "sign-out"
    case twoAccounts = "two-accounts"
    case deviceCodeWindow = "device-code-window"
    /// An embedded sign-in at an Entra-like authority with Microsoft's broker on `BROKER_BUS`:
    /// `<client id> [no-broker] [off]` (BrokerCookieScenario.swift).
    case brokerCookie = "broker-cookie"
    /// N sign-ins in the library's window at ISSUER, resident memory after 5 and after N (Tests/Benchmarks/gobject-rss.sh).
    case rssSignIns = "rss-sign-ins"
    case throughProxy = "through-proxy"
    /// A security key at Glewlwyd, in the library's window: `register|sign-in <client id> [scope...]`
    /// (SecurityKeyScenario.swift).
    case securityKey = "security-key"

    public static var program: String? { "SignInScenarios" }
}
