public import Foundation
import Synchronization

/// Redirects that reach the app from outside its providers: a custom-scheme redirect URI
/// (`com.example.app:/oauth2redirect`) makes the desktop start the app with the URI, and the
/// app hands it to the host (MSAL's `handleMSALResponse`).
extension WebAuthSession {
    /// Hands a URI the app was opened with to the sign-in waiting for it, as the desktop
    /// delivered it (malformed percent-encoding is then refused, not re-encoded). Main thread.
    ///
    /// Returns `true` when it was the running session's redirect URI and ended that session
    /// (with the response, or the error the callback carries); `false`, and nothing happens, when
    /// no session is presenting, the session already ended, `uri` is not its redirect URI, or
    /// its redirect URI is a loopback address (those arrive only through the loopback listener,
    /// so no other program can end the session by starting the app with one).
    @MainActor
    @discardableResult
    public static func handleOpenURL(_ uri: String) -> Bool {
        guard let callback = CallbackURL(uri), let session = ProviderStore.current.slot.session else { return false }
        let accepts = session.state.withLock { state in
            guard case .presenting(let presenting) = state, let redirect = presenting.presentation?.redirectURI else { return false }
            return !redirect.isLoopback && redirect.matches(callback)
        }
        guard accepts else { return false }
        session.redirectReached(callback)
        return true
    }

    /// ``handleOpenURL(_:)-(String)`` for a `URL`.
    @MainActor
    @discardableResult
    public static func handleOpenURL(_ url: URL) -> Bool {
        handleOpenURL(url.absoluteString)
    }
}
