import Foundation
import WebviewHost

/// What ``PublicClientApplication/init(configuration:)`` checks and opens before any sign-in.
extension PublicClientApplicationConfiguration {
    /// Refuses a configuration no sign-in can work with.
    ///
    /// - Throws: `invalidParameters` for an empty client ID, an authority that is neither https
    ///   nor loopback http, a malformed redirect URI, or an `http` redirect URI whose host is not
    ///   a loopback address (parsed as an address, so `http://127.evil.example/` is refused).
    func check() throws(WebAuthError) {
        guard !clientID.isEmpty else {
            throw WebAuthError(.invalidParameters, "The client ID is empty; use the one registered at the identity provider.")
        }
        guard authority.isHTTPSOrLoopback else {
            throw WebAuthError(
                .invalidParameters,
                "The authority \(authority) must be an https URL (plain http only on a loopback address).",
                url: authority)
        }
        _ = try RedirectURI(redirectURI)
        // RFC 8252 7.3 and 8.3: plain http only to a loopback address, where the code never
        // crosses the network; a private-use scheme or https is fine.
        if redirectURI.scheme?.lowercased() == "http", !redirectURI.isHTTPSOrLoopback {
            throw WebAuthError(
                .invalidParameters,
                "The redirect URI \(redirectURI) uses plain http on a host that is not loopback; "
                    + "use http://127.0.0.1, http://[::1], http://localhost, https or an app scheme.",
                url: redirectURI)
        }
    }

    /// The token store chosen here, else the Secret Service's items for this client ID (made
    /// without contacting the service).
    ///
    /// - Throws: `invalidParameters` with the ``TokenCacheStorageError`` underneath when the
    ///   Secret Service store cannot be made.
    func makeTokenCacheStorage() throws(WebAuthError) -> any TokenCacheStorage {
        if let tokenCacheStorage { return tokenCacheStorage }
        do throws(TokenCacheStorageError) {
            return try SecretServiceTokenCacheStorage(attributes: ["client_id": clientID])
        } catch {
            throw WebAuthError(.invalidParameters, error.message, underlyingError: error)
        }
    }
}
