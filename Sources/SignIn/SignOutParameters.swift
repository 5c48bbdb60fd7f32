public import Foundation
public import WebviewHost

/// How far ``PublicClientApplication/signOut(_:with:)`` goes, and in which user agent.
public struct SignOutParameters: Sendable {
    /// How far a sign-out goes.
    public enum Reach: Sendable, Hashable {
        /// This app forgets the account's tokens; the identity provider's session (in the
        /// embedded view's cookies or the person's browser) stays, so the next sign-in may need
        /// no password. MSAL's `signout` without `signoutFromBrowser`.
        case thisApp
        /// The tokens go, and the identity provider's session ends too: OpenID Connect
        /// RP-Initiated Logout in the user agent ``webviewParameters`` choose (its logout page,
        /// then the post-logout redirect), or, for a provider without an end-session endpoint,
        /// its cookies and site data deleted from the embedded view's store.
        case identityProvider
    }

    public var reach: Reach
    /// The user agent of the logout page: use the sign-in's (the embedded view's persistent
    /// store, the same `customWebview`, or the person's browser), or the session to end is not
    /// the one the logout page sees. Its `browserCompletion` `.defaultPage` shows "Signed out".
    public var webviewParameters: WebviewParameters
    /// Where the identity provider sends the user agent after its logout page; registered at the
    /// provider as a post-logout redirect URI, as the sign-in's redirect URI is (a loopback one
    /// for the browser, the exact one for the embedded view). `nil`: the configuration's
    /// redirect URI.
    public var postLogoutRedirectURI: URL?
    /// The steps of this call's logout page, on the main actor, in order: every event of every session the call
    /// runs (with its session and view, ``WebviewHost/WebAuthStep``), and never another call's. Set
    /// it to show progress for this sign-in only; `WebAuthSession.observeAll(_:)` and the
    /// `webAuth*` notifications see every session in the process.
    ///
    /// ```swift
    /// parameters.onStep = { step in
    ///     if case .didFinishLoad = step.event { spinner.stop() }
    /// }
    /// ```
    public var onStep: (@MainActor @Sendable (WebAuthStep) -> Void)?

    public init(reach: Reach = .thisApp, webviewParameters: WebviewParameters = WebviewParameters(), postLogoutRedirectURI: URL? = nil) {
        self.reach = reach
        self.webviewParameters = webviewParameters
        self.postLogoutRedirectURI = postLogoutRedirectURI
    }
}

/// What ``PublicClientApplication/signOut(_:with:)`` did.
public struct SignOutResult: Sendable {
    /// The account signed out.
    public let account: Account
    /// The token cache held tokens of the account, and they are gone (from this process, and
    /// from the store unless ``tokenCacheError`` says otherwise).
    public let tokensRemoved: Bool
    /// The store could not take the removal: it is kept in memory and written with the store's
    /// next successful write (see ``PublicClientApplication/saveUnsavedTokens()``).
    public let tokenCacheError: TokenCacheStorageError?
    /// What happened at the identity provider.
    public let identityProvider: IdentityProviderSignOut
}

/// The identity provider's side of a sign-out.
public enum IdentityProviderSignOut: Sendable {
    /// Not asked (``SignOutParameters/Reach/thisApp``).
    case notAsked
    /// The provider's logout page ran and came back to the post-logout redirect URI with the
    /// request's `state`: its session in that user agent has ended.
    case signedOut
    /// The provider has no end-session endpoint; the embedded view's store forgot the cookies
    /// and site data of these sites (the provider's hosts; other sites' data stays).
    case siteDataCleared(sites: [String])
    /// Nothing could be done: the provider has no end-session endpoint and the user agent's data
    /// is out of the library's reach (the person's browser), or a token broker holds the session.
    case notPossible(reason: String)
    /// The logout page did not finish (the person cancelled, the time ran out, a forged `state`,
    /// the provider's error...). The tokens were removed all the same.
    case failed(WebAuthError)
}
