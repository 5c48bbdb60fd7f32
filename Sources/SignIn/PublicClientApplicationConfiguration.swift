public import Foundation
public import WebviewHost

/// How a ``PublicClientApplication`` reaches its identity provider (MSAL's `MSALPublicClientApplicationConfig`).
public struct PublicClientApplicationConfiguration: Sendable {
    /// The client identifier registered at the provider (a public client: no secret).
    public var clientID: String
    /// The issuer URL; its metadata is read from `<authority>/.well-known/openid-configuration`.
    /// Must be `https`, except on a loopback host.
    public var authority: URL
    /// The redirect URI registered for the app. A loopback provider may add the port it binds.
    public var redirectURI: URL
    /// Scopes added to every request (MSAL adds the same): `openid` is always sent, whatever this holds.
    public var defaultScopes: [String]
    /// How far the provider's clock may differ from ours when `exp` and `iat` are checked.
    public var allowedClockSkew: TimeInterval
    /// An access token expiring sooner than this is renewed by ``PublicClientApplication/acquireTokenSilent(with:)``.
    public var accessTokenRenewalMargin: TimeInterval
    /// The time limit of each request to the provider (discovery, keys, token endpoint).
    public var networkTimeout: TimeInterval
    /// The current time; tests inject their own clock.
    public var now: @Sendable () -> Date
    /// Where tokens are kept between runs. `nil` (the default) is the Secret Service:
    /// ``SecretServiceTokenCacheStorage`` with the default schema and the attribute
    /// `client_id` = ``clientID``. Choose ``InMemoryTokenCacheStorage`` to remember nobody,
    /// ``FileTokenCacheStorage`` for an unencrypted file, or your own ``TokenCacheStorage``.
    /// There is no silent fall-back to another store: when the chosen store fails, tokens a
    /// sign-in or a renewal got are kept in memory and reported
    /// (``AuthenticationResult/tokenCacheError``), and calls that only read the store fail.
    public var tokenCacheStorage: (any TokenCacheStorage)?
    /// Sign in through a registered ``TokenBroker`` (as msal-python's `enable_broker_on_linux`):
    /// when one is available for ``authority``, interactive and silent calls, accounts and
    /// removal go to it, and its tokens stay with it (the token cache is not used for them).
    /// When none is registered, running, or handling the authority, the usual web flow runs.
    /// Off by default.
    public var usesTokenBroker: Bool = false
    /// Before an embedded sign-in at an Entra ID authority, ask the first available registered
    /// ``TokenBroker`` for its single-sign-on cookies (Microsoft's PRT SSO cookie, see
    /// ``TokenBroker/signInCookies(for:)``) and put them in the view for the authority's host, so
    /// that a managed device signs in without a password. Not sent into a caller's view unless
    /// its ``WebviewHost/WebviewParameters/signInCookiesInCustomWebview`` says so; never sent to
    /// the person's browser. A broker that fails or has none leaves the sign-in as it is. On by
    /// default; it has no effect without a registered broker.
    public var usesBrokerSignInCookies: Bool = true
    /// The proxy for every request of a sign-in: ``ProviderConnection``'s own (discovery, keys,
    /// token, device code, sign-out) and the library's sign-in window's pages. `nil` (the
    /// default) follows the desktop's proxy settings, as WebKit does (GIO's default resolver:
    /// GNOME's settings, the `http_proxy` variables, the ProxyResolver portal in Flatpak).
    /// A view of the app's own (``WebviewParameters/customWebview``) keeps the proxy the app set
    /// on it: give it the same one.
    public var networkProxy: NetworkProxy? = nil
    /// Called on the main actor when ``PublicClientApplication/acquireToken(with:)`` cannot open
    /// the token cache's store, before the sign-in page is shown (the store is opened first, a
    /// keyring's unlock prompt included, within the store's time limit): return whether to sign
    /// in with tokens kept in memory for this run, or to stop. It may ask the person (a dialog)
    /// before it returns. The default keeps tokens in memory; the result then carries the error
    /// in ``AuthenticationResult/tokenCacheError``.
    public var tokenCacheUnavailable: @MainActor @Sendable (TokenCacheStorageError) async -> TokenCacheUnavailableDecision

    public init(
        clientID: String,
        authority: URL,
        redirectURI: URL,
        defaultScopes: [String] = ["openid", "profile", "offline_access"],
        allowedClockSkew: TimeInterval = 60,
        accessTokenRenewalMargin: TimeInterval = 300,
        networkTimeout: TimeInterval = 30,
        now: @escaping @Sendable () -> Date = { Date() },
        tokenCacheStorage: (any TokenCacheStorage)? = nil,
        tokenCacheUnavailable: @escaping @MainActor @Sendable (TokenCacheStorageError) async -> TokenCacheUnavailableDecision = { _ in
            .keepInMemoryForThisRun
        }
    ) {
        self.clientID = clientID
        self.authority = authority
        self.redirectURI = redirectURI
        self.defaultScopes = defaultScopes
        self.allowedClockSkew = allowedClockSkew
        self.accessTokenRenewalMargin = accessTokenRenewalMargin
        self.networkTimeout = networkTimeout
        self.now = now
        self.tokenCacheStorage = tokenCacheStorage
        self.tokenCacheUnavailable = tokenCacheUnavailable
    }
}

extension PublicClientApplicationConfiguration {
    /// `parameters` with this configuration's ``networkProxy``: the view's pages take the route of
    /// SignIn's own requests.
    func routed(_ parameters: WebviewParameters) -> WebviewParameters {
        var parameters = parameters
        if let networkProxy { parameters.networkProxy = networkProxy }
        return parameters
    }
}
