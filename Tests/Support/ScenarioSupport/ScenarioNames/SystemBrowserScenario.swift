/// The scenarios `SystemBrowserScenarios` runs, by the name on its command line.
public enum SystemBrowserScenario: String, ScenarioName {
    case query
    case formPost = "form-post"
    case oauthError = "oauth-error"
    case malformedCallback = "malformed-callback"
    case unreadableCallback = "unreadable-callback"
    case stateMismatch = "state-mismatch"
    case wrongPathFirst = "wrong-path-first"
    case afterCompletion = "after-completion"
    case portZero = "port-zero"
    case ipv6
    /// A sign-in whose loopback redirect URI is the scenario's argument (any spelling the configuration accepts).
    case loopbackSpelling = "loopback-spelling"
    case fixedPort = "fixed-port"
    case busyPort = "busy-port"
    case noBrowser = "no-browser"
    case timeout
    case cancel
    case scriptRedirect = "script-redirect"
    case scriptRedirectTwice = "script-redirect-twice"
    case customPage = "custom-page"
    case redirectPage = "redirect-page"
    case customScheme = "custom-scheme"
    case customSchemeEdges = "custom-scheme-edges"
    case conformance
    case outcomeMatrix = "outcome-matrix"
    case hostileLoad = "hostile-load"
    case concurrentCallbacks = "concurrent-callbacks"
    case installOddPath = "install-odd-path"
    case installOddPathNoPercent = "install-odd-path-no-percent"
    case installPermissions = "install-permissions"
    case firstHopOnce = "first-hop-once"
    case launchFails = "launch-fails"
    case launchForwards = "launch-forwards"
    case launchNeverFetches = "launch-never-fetches"
    case hostileRequests = "hostile-requests"

    public static var program: String? { "SystemBrowserScenarios" }
}
