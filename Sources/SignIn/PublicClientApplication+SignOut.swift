import Foundation
import Synchronization
public import WebviewHost

/// Signing out: the account's tokens leave the cache, and, when asked, the identity provider's
/// session ends too (OpenID Connect RP-Initiated Logout 1.0, in the user agent the sign-in used).
extension PublicClientApplication {
    /// Signs `account` out. Its tokens leave the token cache whatever happens at the identity
    /// provider. With ``SignOutParameters/Reach/identityProvider`` the provider's session ends
    /// too: its `end_session_endpoint` (from discovery) is opened in the user agent the
    /// parameters choose, with `id_token_hint` (the account's last ID token), `client_id`,
    /// `post_logout_redirect_uri` and a fresh `state` checked on return, as a
    /// ``WebviewHost/WebAuthSession`` (the same notifications, one outcome, cancel with
    /// ``cancelCurrentInteractiveSession()`` or the task, the parameters' timeout). A provider
    /// without that endpoint has its cookies and site data deleted from the embedded view's
    /// store (the person's browser cannot be reached). With a token broker, the broker signs the
    /// account out of this app.
    ///
    /// - Returns: what was done, the identity provider's part included: a logout page that did
    ///   not finish is ``IdentityProviderSignOut/failed(_:)``, not a thrown error.
    /// - Throws: `providerUnavailable` when the token store cannot be read at all and nothing is
    ///   kept in memory (nothing was changed); `sessionAlreadyInProgress` while a sign-in runs.
    @MainActor
    public func signOut(_ account: Account, with parameters: SignOutParameters = SignOutParameters()) async throws(WebAuthError)
        -> SignOutResult
    {
        if let broker = await activeBroker() {
            let removed = try await remove(account, through: broker)
            return SignOutResult(
                account: account, tokensRemoved: removed, tokenCacheError: nil,
                identityProvider: parameters.reach == .thisApp
                    ? .notAsked : .notPossible(reason: "The token broker holds the session; it signed the account out of this app."))
        }
        // The ID token first: the logout names the session it ends with it.
        // An account signed in without an ID token (a device grant) has no hint to give.
        let idToken = try await cache.cachedAccount(account)?.idToken.nilIfEmpty
        let (removed, storeError) = await cache.forget(account)
        guard parameters.reach == .identityProvider else {
            return SignOutResult(account: account, tokensRemoved: removed, tokenCacheError: storeError, identityProvider: .notAsked)
        }
        let outcome = await signOutAtIdentityProvider(idToken: idToken, parameters: parameters)
        return SignOutResult(account: account, tokensRemoved: removed, tokenCacheError: storeError, identityProvider: outcome)
    }

    /// RP-Initiated Logout, or the embedded view's site data when the provider has no endpoint.
    @MainActor
    private func signOutAtIdentityProvider(idToken: String?, parameters: SignOutParameters) async -> IdentityProviderSignOut {
        let metadata: OpenIDProviderMetadata
        do throws(WebAuthError) {
            metadata = try await authority.providerMetadata()
        } catch {
            return .failed(error)
        }
        guard let endSession = metadata.endSessionEndpoint else {
            let hosts = Set([configuration.authority, metadata.authorizationEndpoint, metadata.tokenEndpoint].compactMap { $0.host?.lowercased() })
            do throws(WebAuthError) {
                switch try await WebAuthSession.clearSiteData(forHosts: hosts.sorted(), parameters: parameters.webviewParameters) {
                case .cleared(_, let sites): return .siteDataCleared(sites: sites)
                case .notPossible(_, let reason):
                    return .notPossible(reason: "The identity provider has no end-session endpoint, and \(reason)")
                }
            } catch {
                return .failed(error)
            }
        }
        var webview = configuration.routed(parameters.webviewParameters)
        if webview.browserCompletion == .defaultPage { webview.browserCompletion = .signedOutPage }
        webview.systemBrowserHandOver = .never  // a logout page ends the session of its own user agent only
        let session = WebAuthSession(redirectURI: parameters.postLogoutRedirectURI ?? configuration.redirectURI, parameters: webview)
        let state = RandomValue.make()
        let clientID = configuration.clientID
        let outcome: Result<WebAuthResponse, WebAuthError>
        do throws(WebAuthError) {
            outcome = .success(try await interactions.run(over: webview.parentWindow, onStep: parameters.onStep) { interaction throws(WebAuthError) in
                interaction.attach(session)
                return try await session.authenticate(expectedState: state) { redirect in
                    try Self.endSessionURL(endSession, idToken: idToken, clientID: clientID, postLogoutRedirectURI: redirect, state: state)
                }
            })
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success: return .signedOut
        case .failure(let error): return .failed(error)
        }
    }

    /// `end_session_endpoint?id_token_hint&client_id&post_logout_redirect_uri&state`, the
    /// endpoint's own query kept (RP-Initiated Logout 1.0 section 2).
    static func endSessionURL(_ endpoint: URL, idToken: String?, clientID: String, postLogoutRedirectURI: URL, state: String) throws -> URL {
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw WebAuthError(.invalidResponse, "The provider's end_session_endpoint \(endpoint) is not a valid URL.", url: endpoint)
        }
        var items = components.queryItems ?? []
        if let idToken { items.append(URLQueryItem(name: "id_token_hint", value: idToken)) }
        items += [
            URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "post_logout_redirect_uri", value: postLogoutRedirectURI.absoluteString),
            URLQueryItem(name: "state", value: state),
        ]
        components.percentEncodedQuery = FormEncoding.encode(items.map { ($0.name, $0.value ?? "") })
        guard let url = components.url else {
            throw WebAuthError(.invalidResponse, "The provider's end_session_endpoint \(endpoint) is not a valid URL.", url: endpoint)
        }
        return url
    }
}

extension String {
    /// `nil` for the empty string.
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
