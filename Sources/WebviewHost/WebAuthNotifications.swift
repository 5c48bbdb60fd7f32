public import Foundation

extension Notification.Name {
    /// A page of the sign-in started loading. userInfo: `url`, and `webview` where there is a view.
    public static let webAuthDidStartLoad = Notification.Name("WebAuthDidStartLoadNotification")
    /// A page finished loading (or a load was handed elsewhere). userInfo: `url`, `webview`.
    public static let webAuthDidFinishLoad = Notification.Name("WebAuthDidFinishLoadNotification")
    /// The session failed, including cancellation. userInfo: `error` (a ``WebAuthError``), `url`, `webview`.
    public static let webAuthDidFail = Notification.Name("WebAuthDidFailNotification")
    /// The session reached the redirect URI. userInfo: `url` (the callback URL), `webview`.
    public static let webAuthDidComplete = Notification.Name("WebAuthDidCompleteNotification")
    /// A broker app is about to take over the sign-in. userInfo: `url`, `webview`.
    public static let webAuthWillSwitchToBrokerApp = Notification.Name("WebAuthWillSwitchToBrokerAppNotification")
    /// The sign-in leaves the embedded view and goes on in the person's browser, in the same
    /// session (a new authorization request; the browser's own steps follow). userInfo: `handOver`
    /// (a ``SystemBrowserHandOver``: the reason), `url` (the page the view showed), `webview`.
    public static let webAuthWillSwitchToSystemBrowser = Notification.Name("WebAuthWillSwitchToSystemBrowserNotification")
}

/// The userInfo keys of the `webAuth*` notifications.
public enum WebAuthNotificationKey {
    /// A `URL`: the page, or the callback URL for `didComplete`.
    public static let url = "url"
    /// A ``WebAuthError`` (on `didFail`).
    public static let error = "error"
    /// A ``WebviewHandle`` for the `WebKitWebView` showing the sign-in, where there is one.
    public static let webview = "webview"
    /// A ``SystemBrowserHandOver`` (on `willSwitchToSystemBrowser`): why the sign-in moved.
    public static let handOver = "handOver"
}

/// One step of a session, as ``WebAuthSession/observe(_:)``, ``WebAuthSession/observeAll(_:)`` and
/// ``WebAuthSession/events`` deliver it. The same steps are posted as `webAuth*` notifications on
/// the main thread, with the session as the notification's object.
public enum WebAuthEvent: Sendable, CustomStringConvertible {
    case didStartLoad(URL)
    case didFinishLoad(URL)
    case willSwitchToBrokerApp(URL)
    /// The sign-in moves from the embedded view to the person's browser (see ``SystemBrowserHandOver``).
    case willSwitchToSystemBrowser(SystemBrowserHandOver)
    /// Terminal: the callback URL.
    case didComplete(URL)
    /// Terminal: the one error.
    case didFail(WebAuthError)

    /// The notification this event is posted as.
    public var notificationName: Notification.Name {
        switch self {
        case .didStartLoad: .webAuthDidStartLoad
        case .didFinishLoad: .webAuthDidFinishLoad
        case .willSwitchToBrokerApp: .webAuthWillSwitchToBrokerApp
        case .willSwitchToSystemBrowser: .webAuthWillSwitchToSystemBrowser
        case .didComplete: .webAuthDidComplete
        case .didFail: .webAuthDidFail
        }
    }

    public var isTerminal: Bool {
        switch self {
        case .didComplete, .didFail: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .didStartLoad(let url): "didStartLoad(\(url.absoluteString))"
        case .didFinishLoad(let url): "didFinishLoad(\(url.absoluteString))"
        case .willSwitchToBrokerApp(let url): "willSwitchToBrokerApp(\(url.absoluteString))"
        case .willSwitchToSystemBrowser(let handOver): "willSwitchToSystemBrowser(\(handOver.reason))"
        case .didComplete(let url): "didComplete(\(url.absoluteString))"
        case .didFail(let error): "didFail(\(error.code))"
        }
    }
}
