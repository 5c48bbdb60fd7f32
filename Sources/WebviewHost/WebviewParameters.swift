public import Foundation

/// How the sign-in is presented: MSAL's `MSALWebviewParameters` for GTK.
public struct WebviewParameters: Sendable {
    /// Which user agent to use. `.default` lets the ``WebviewSelectionPolicy`` decide.
    public var webviewType: WebviewType
    /// The app window a library-owned sign-in window is modal over, and whose display launches the browser.
    public var parentWindow: WindowHandle?
    /// The caller's own `WebKitWebView`; when set, the sign-in page loads there instead of in a new window.
    public var customWebview: WebviewHandle?
    /// Use a web context that shares no cookies with earlier sessions (no single sign-on).
    public var prefersEphemeralWebBrowserSession: Bool
    /// How long the session may run before it ends with `timedOut`; `nil` uses the provider's
    /// default (10 minutes for the system browser, none for a window the person can close).
    public var timeout: Duration?
    /// The title of a window the library owns; the default, ``defaultWindowTitle``, is shown in
    /// the person's language (``WebviewLocalization``), a title of the app's as it is.
    public var windowTitle: String
    /// "Sign in": the default ``windowTitle``.
    public static let defaultWindowTitle = "Sign in"
    /// The size of a window the library owns, in logical pixels.
    public var windowSize: WindowSize
    /// What the person's browser shows once the redirect reached the app (system browser only).
    public var browserCompletion: BrowserCompletion
    /// What happens when a sign-in page navigates to a scheme that is neither web nor the redirect
    /// (`mailto:`, another app's scheme): by default the library's window asks the person first.
    public var externalSchemes: ExternalSchemePolicy
    /// Settings for one provider that the host does not interpret (a kiosk browser's profile, an
    /// external provider's options, which are sent to the plugin in its `prepare` message).
    /// Providers document the keys they read and ignore the others. Keys and values are strings
    /// so that they cross a process boundary unchanged.
    public var providerOptions: [String: String]
    /// What an embedded sign-in does when its page needs what the view cannot do (a passkey, a
    /// provider that refuses embedded agents): move to the person's browser at once (the
    /// default), ask first, or never. See ``SystemBrowserHandOverPolicy``.
    public var systemBrowserHandOver: SystemBrowserHandOverPolicy
    /// Pages that refuse embedded user agents; a match hands the sign-in over as
    /// ``systemBrowserHandOver`` says. Google's `disallowed_useragent` by default; add your own.
    public var embeddedAgentRefusals: [EmbeddedAgentRefusal]
    /// The redirect URI a hand-over to the person's browser uses; `nil` uses the session's own
    /// when the browser can deliver to it (a loopback `http` URI or an app scheme). Set it when
    /// the session's redirect is an `https` URI only a web view can intercept.
    public var systemBrowserRedirectURI: URL?
    /// Cookies an embedded sign-in puts in its view's cookie store before the first page loads,
    /// each for its one host, and removes when the session ends: a device broker's single-sign-on
    /// cookie (see ``SignInCookie``). `PublicClientApplication` fills this from a token broker at
    /// an Entra ID authority; other providers (the person's browser) cannot set cookies and
    /// ignore it. Set in the library's window only, unless ``signInCookiesInCustomWebview``.
    public var signInCookies: [SignInCookie] = []
    /// Whether ``signInCookies`` also go into a caller's view (``customWebview``): its cookie
    /// store is the app's, so by default they do not (`false`).
    public var signInCookiesInCustomWebview = false
    /// Add `PKeyAuth/1.0` to the embedded view's user agent for the session, as MSAL's web view
    /// does: it tells Microsoft Entra ID and AD FS that the view answers their device challenge
    /// (PKeyAuth), so that they send it. `PublicClientApplication` sets it at Entra ID and AD FS
    /// authorities and only there; other providers never see it. Off by default.
    public var advertisesDeviceChallenge = false
    /// Whether the embedded view answers the page's Web Authentication calls
    /// (`navigator.credentials.create`/`get` with `publicKey`) with the person's security keys,
    /// through libfido2, when a key is plugged in as the session starts: the library's window
    /// does (`true`). Off, or with no key there, a page's WebAuthn call hands the sign-in over to
    /// the browser as ``systemBrowserHandOver`` says. Only pages of secure origins (https, and http
    /// on loopback) see the API; the README's "Passkeys and security keys" says what is answered.
    public var securityKeys = true
    /// Whether a caller's view (``customWebview``) answers WebAuthn too, for the session: scripts
    /// are added to the app's view, so by default it does not (`false`).
    public var securityKeysInCustomWebview = false
    /// The client certificate the embedded view offers when a sign-in server asks for one in the
    /// TLS handshake (certificate-based sign-in); `nil`: the person chooses one of their tokens'
    /// in the library's chooser (or ``clientCertificateChooser`` answers), and with none the
    /// session ends with `clientCertificateRequired`. For this session only (see ``ClientCertificate``):
    /// the library's window runs such a session in an ephemeral web context of its own (no cookies
    /// shared with the app's persistent one); a caller's view whose network session another
    /// certificate authenticated earlier in the run is refused with `invalidParameters`.
    public var clientCertificate: ClientCertificate?
    /// The app's own answer when a server asks for a client certificate and
    /// ``clientCertificate`` is `nil`, instead of the library's chooser (which lists the
    /// certificates on the person's tokens and remembers the choice per host for the app's run);
    /// `nil` uses the library's. For this session only.
    public var clientCertificateChooser: ClientCertificateChooser?
    /// The proxy of the library's sign-in window for this session; `nil` (the default) follows the
    /// desktop's proxy settings (GIO's default resolver; the ProxyResolver portal in Flatpak).
    /// `PublicClientApplication` sets it from its configuration's `networkProxy`, so its own
    /// requests and the window's pages take the same route. A caller's view
    /// (``customWebview``) keeps the proxy the app gave its web context or network session.
    public var networkProxy: NetworkProxy? = nil
    /// The policy that chooses this session's provider; `nil` (the default) uses the process's,
    /// ``WebviewProviderRegistry/selectionPolicy``. Read wherever the host consults a policy for
    /// these parameters (``WebAuthSession/prepare()``, ``WebAuthSession/prewarm(parameters:authorityHost:environment:)``,
    /// ``WebAuthSession/clearSiteData(forHosts:parameters:environment:)``), so concurrent calls
    /// can each choose their own way without replacing the process's policy.
    public var selectionPolicy: (any WebviewSelectionPolicy)? = nil

    public init(
        webviewType: WebviewType = .default,
        parentWindow: WindowHandle? = nil,
        customWebview: WebviewHandle? = nil,
        prefersEphemeralWebBrowserSession: Bool = false,
        timeout: Duration? = nil,
        windowTitle: String = WebviewParameters.defaultWindowTitle,
        windowSize: WindowSize = .init(width: 520, height: 680),
        browserCompletion: BrowserCompletion = .defaultPage,
        externalSchemes: ExternalSchemePolicy = .ask,
        providerOptions: [String: String] = [:],
        systemBrowserHandOver: SystemBrowserHandOverPolicy = .automatic,
        embeddedAgentRefusals: [EmbeddedAgentRefusal] = EmbeddedAgentRefusal.known,
        systemBrowserRedirectURI: URL? = nil,
        clientCertificate: ClientCertificate? = nil,
        clientCertificateChooser: ClientCertificateChooser? = nil
    ) {
        self.webviewType = webviewType
        self.parentWindow = parentWindow
        self.customWebview = customWebview
        self.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
        self.timeout = timeout
        self.windowTitle = windowTitle
        self.windowSize = windowSize
        self.browserCompletion = browserCompletion
        self.externalSchemes = externalSchemes
        self.providerOptions = providerOptions
        self.systemBrowserHandOver = systemBrowserHandOver
        self.embeddedAgentRefusals = embeddedAgentRefusals
        self.systemBrowserRedirectURI = systemBrowserRedirectURI
        self.clientCertificate = clientCertificate
        self.clientCertificateChooser = clientCertificateChooser
    }
}

/// A window size in logical pixels.
public struct WindowSize: Hashable, Sendable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// What the person's browser shows after the redirect reached the app's loopback listener.
public enum BrowserCompletion: Hashable, Sendable {
    /// A small built-in page saying sign-in finished (or failed, with the server's description)
    /// and that the tab can be closed.
    case defaultPage
    /// A small built-in page saying the person is signed out (and that the tab can be closed):
    /// what `PublicClientApplication.signOut` uses when the parameters say ``defaultPage``.
    case signedOutPage
    /// The app's own HTML pages.
    case html(success: String, failure: String)
    /// Redirect the browser to the app's own pages.
    case redirect(success: URL, failure: URL)
}
