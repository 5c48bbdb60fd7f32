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
    case throughProxy = "through-proxy"

    public static var program: String? { "SignInScenarios" }
}
