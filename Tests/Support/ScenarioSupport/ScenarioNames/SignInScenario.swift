/// The scenarios `SignInScenarios` runs, by the name on its command line.
public enum SignInScenario: String, ScenarioName {
    case embeddedWindow = "embedded-window"
    case embeddedCustomView = "embedded-custom-view"
    case systemBrowser = "system-browser"
    case embeddedHandOver = "embedded-hand-over"

    public static var program: String? { "SignInScenarios" }
}
