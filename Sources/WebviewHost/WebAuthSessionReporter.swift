public import Foundation

/// Where a provider session reports what happens (AppAuth's `OIDExternalUserAgentSession`).
///
/// Safe from any thread. Every method "has no effect if called" after the session's outcome:
/// late and duplicate reports are ignored, never crashed on.
public final class WebAuthSessionReporter: Sendable {
    private weak let session: WebAuthSession?
    /// Which provider session this reporter belongs to; a provider replaced by a broker is no
    /// longer current, and its reports are ignored.
    private let generation: Int

    init(session: WebAuthSession, generation: Int) {
        self.session = session
        self.generation = generation
    }

    /// The session, while this reporter's provider is the one presenting it.
    private var active: WebAuthSession? {
        guard let session, session.isCurrentProvider(generation) else { return nil }
        return session
    }

    /// The redirect URI this provider's session ends at, once ``WebviewProviderSession/prepare()``
    /// returned. After a hand-over to the browser it stays the one this provider was given, so
    /// its view keeps recognising (and never loading) its own redirect.
    public var redirectURI: RedirectURI? { session?.redirectURI(forGeneration: generation) }

    /// Whether the session already has its outcome; a provider can stop early.
    public var isFinished: Bool { active?.isFinished ?? true }

    /// The error the session ended with, or `nil` while it runs or when it succeeded; lets a
    /// provider tell the person how it ended (the browser page after a loopback redirect).
    public var failure: WebAuthError? { session?.failure }

    /// Whether `url` is the redirect URI (the contract's matching rule).
    public func isRedirect(_ url: URL) -> Bool {
        redirectURI?.matches(url) ?? false
    }

    /// Offers a URL the user agent is about to navigate to, or was sent to.
    ///
    /// Returns `true` when `url` is the redirect URI: the provider must then not load it. The
    /// first such call ends the session (with the response, or the OAuth error it carries);
    /// later ones are ignored.
    @discardableResult
    public func handleRedirect(_ url: URL) -> Bool {
        handleRedirect(CallbackURL(url))
    }

    /// ``handleRedirect(_:)`` for the URL text a user agent reported (WebKit, libsoup), so that a
    /// callback with malformed percent-encoding ends the session with `invalidResponse` instead
    /// of being silently re-encoded.
    @discardableResult
    public func handleRedirect(_ urlString: String) -> Bool {
        guard let callback = CallbackURL(urlString) else { return false }
        return handleRedirect(callback)
    }

    /// The callback parsed once: matched, then read by the session from the same components.
    private func handleRedirect(_ callback: CallbackURL) -> Bool {
        guard redirectURI?.matches(callback) ?? false else { return false }
        active?.redirectReached(callback)
        return true
    }

    /// Ends the session with `error` (the first outcome wins).
    public func fail(_ error: WebAuthError) {
        active?.finish(.failure(error))
    }

    /// A page started loading: posts `webAuthDidStartLoad`.
    public func didStartLoad(_ url: URL) {
        active?.post(.didStartLoad(url))
    }

    /// A page finished loading, or a navigation was handed elsewhere: posts `webAuthDidFinishLoad`.
    public func didFinishLoad(_ url: URL) {
        active?.post(.didFinishLoad(url))
    }

    /// A broker app is about to take over: posts `webAuthWillSwitchToBrokerApp`.
    public func willSwitchToBrokerApp(_ url: URL) {
        active?.post(.willSwitchToBrokerApp(url))
    }

    /// Whether a registered provider is a broker for `url`'s scheme (see ``WebviewProvider/brokerSchemes``).
    public func isBrokerURL(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return session?.brokerSchemes.contains(scheme) ?? false
    }

    /// Offers a broker app's URI (`msauth://...`) the sign-in page navigated to: posts
    /// `webAuthWillSwitchToBrokerApp`, then hands the session to a registered, available provider
    /// whose ``WebviewProvider/brokerSchemes`` include the URI's scheme, which is presented with
    /// `url`. Returns `false` when no such provider exists (hand the URI to the system instead);
    /// after `true` this provider is dismissed and its reports are ignored.
    @MainActor
    @discardableResult
    public func switchToBroker(_ url: URL) -> Bool {
        guard let session = active else { return false }
        session.post(.willSwitchToBrokerApp(url))
        return session.switchToBroker(url, from: generation)
    }

    /// Whether ``handOverToSystemBrowser(_:)`` can move the sign-in to the person's browser now
    /// (the app gave a way to build the new request, a browser provider is available, and the
    /// policy is not `never`): whether to offer "Continue in your browser", or advertise WebAuthn.
    public var canHandOverToSystemBrowser: Bool {
        active?.canHandOverToSystemBrowser ?? false
    }

    /// The page needs the person's browser: posts `webAuthWillSwitchToSystemBrowser` and goes on
    /// in the system-browser provider with a new authorization request (its own redirect URI
    /// and `state`), in the same session; this provider is then dismissed and its reports are
    /// ignored. With the policy `never`, or no way to move, the session ends with
    /// `systemBrowserRequired` instead. A provider asks the person first itself when the policy
    /// is ``SystemBrowserHandOverPolicy/askFirst`` and the person did not choose this.
    /// Returns `true` when the browser takes over. Has no effect after the outcome.
    @MainActor
    @discardableResult
    public func handOverToSystemBrowser(_ handOver: SystemBrowserHandOver) -> Bool {
        guard let session = active else { return false }
        return session.handOverToSystemBrowser(handOver, from: generation)
    }

    /// The view showing the sign-in; it is put in every notification's userInfo under `webview`.
    public func setWebview(_ webview: WebviewHandle?) {
        active?.setWebview(webview)
    }
}
