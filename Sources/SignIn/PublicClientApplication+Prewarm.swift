import Foundation
public import WebviewHost

extension PublicClientApplication {
    /// Warm start for the next interactive sign-in: the user agent that `acquireToken` with
    /// `webviewParameters` would use prepares ahead of time for this application's authority
    /// (the embedded view makes its window with the web process running and the authority's host
    /// resolved). Call it when the app shows its sign-in button. Main thread; returns the
    /// provider's id, or `nil` when none would be chosen.
    @MainActor
    @discardableResult
    public func prewarm(webviewParameters: WebviewParameters = WebviewParameters()) -> WebviewProviderID? {
        WebAuthSession.prewarm(parameters: configuration.routed(webviewParameters), authorityHost: configuration.authority.host)
    }
}
