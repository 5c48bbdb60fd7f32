/// What one `TokenCacheScenarios` process does (the first word on its command line; the words
/// each takes are in that program's header).
public enum TokenCacheCommand: String, ScenarioName {
    case signIn = "sign-in"
    case signInKeep = "sign-in-keep"
    case refreshRounds = "refresh-rounds"
    case silent
    case concurrentSilent = "concurrent-silent"
    case accounts
    case remove
    case writeLoop = "write-loop"
    case holdLock = "hold-lock"
    case dump
    case clear
    case deviceCode = "device-code"

    public static var program: String? { "TokenCacheScenarios" }
}
