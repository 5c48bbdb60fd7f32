public import Foundation

/// The `webAuth*` notifications by their Swift names; each is ``WebAuthEvent/Kind/notificationName``
/// of its step (the names are MSAL's: `WebAuthDidStartLoadNotification`...).
extension Notification.Name {
    /// A page of the sign-in started loading. userInfo: `url`, and `webview` where there is a view.
    public static let webAuthDidStartLoad = WebAuthEvent.Kind.didStartLoad.notificationName
    /// A page finished loading (or a load was handed elsewhere). userInfo: `url`, `webview`.
    public static let webAuthDidFinishLoad = WebAuthEvent.Kind.didFinishLoad.notificationName
    /// The session failed, including cancellation. userInfo: `error` (a ``WebAuthError``), `url`, `webview`.
    public static let webAuthDidFail = WebAuthEvent.Kind.didFail.notificationName
    /// The session reached the redirect URI. userInfo: `url` (the callback URL), `webview`.
    public static let webAuthDidComplete = WebAuthEvent.Kind.didComplete.notificationName
    /// A broker app is about to take over the sign-in. userInfo: `url`, `webview`.
    public static let webAuthWillSwitchToBrokerApp = WebAuthEvent.Kind.willSwitchToBrokerApp.notificationName
    /// The sign-in leaves the embedded view and goes on in the person's browser, in the same
    /// session (a new authorization request; the browser's own steps follow). userInfo: `handOver`
    /// (a ``SystemBrowserHandOver``: the reason), `url` (the page the view showed), `webview`.
    public static let webAuthWillSwitchToSystemBrowser = WebAuthEvent.Kind.willSwitchToSystemBrowser.notificationName
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
