public import Foundation

/// Custom-scheme redirects (`com.example.app:/oauth2redirect`, RFC 8252 section 7.1).
public enum CustomSchemeRedirect {
    /// The system-browser session waiting for a custom-scheme redirect, if any.
    @MainActor static weak var waitingSession: SystemBrowserSession?

    /// Hands a URL the app was opened with (its `GApplication` `open` handler) to the running
    /// sign-in. Returns `true` when it was that sign-in's redirect and ended it. Main thread.
    @MainActor
    public static func handOver(_ url: URL) -> Bool {
        waitingSession?.receive(url) ?? false
    }
}
