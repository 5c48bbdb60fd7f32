public import Foundation

/// A web user agent that can run a sign-in: the plugin interface of the host.
///
/// A provider describes itself (identifier, name, priority, kind) and says whether it can run in
/// an environment; for each sign-in it makes a ``WebviewProviderSession`` that presents the page
/// and reports back to a ``WebAuthSessionReporter``. The host turns those reports into
/// notifications and exactly one terminal outcome. See <doc:ImplementingAProvider>.
public protocol WebviewProvider: Sendable {
    /// The identifier `WEBVIEW_HOST_PROVIDER` and ``WebviewType/provider(_:)`` name.
    var id: WebviewProviderID { get }
    /// A name for people, shown by `WEBVIEW_HOST_PROVIDER=help`.
    var displayName: String { get }
    /// Higher wins when the policy chooses among providers of the same standing.
    var priority: Int { get }
    /// What kind of user agent this is; the policy maps ``WebviewType`` onto kinds.
    var kind: WebviewProviderKind { get }
    /// Whether the provider needs a graphical session (a display) to run.
    var requiresDisplay: Bool { get }
    /// Whether the provider can show the sign-in in a caller-supplied `WebKitWebView`.
    var supportsCustomWebview: Bool { get }
    /// The timeout used when ``WebviewParameters/timeout`` is `nil`; `nil` for none.
    var defaultTimeout: Duration? { get }
    /// URI schemes of the broker app this provider stands for (`msauth`...): a sign-in page in
    /// another provider that navigates to one is handed to this provider (see
    /// ``WebAuthSessionReporter/switchToBroker(_:)``). Empty for providers that are no broker.
    var brokerSchemes: Set<String> { get }
    /// Where the provider came from, for people: `nil` for one the app registered in code; an
    /// installed provider gives its descriptor file. `WEBVIEW_HOST_PROVIDER=help` prints it.
    var origin: String? { get }

    /// Whether the provider can run in `environment`, and why not. Called from any thread.
    func availability(in environment: WebviewEnvironment) -> WebviewProviderAvailability

    /// What `WEBVIEW_HOST_PROVIDER=help` says about the provider in `environment` besides its
    /// availability, one line each (in a sandbox: which portal it goes through and whether it
    /// answered). Called from any thread, only for `help`; may take a moment. Default: nothing.
    func helpNotes(in environment: WebviewEnvironment) -> [String]

    /// Prepares ahead of time what this provider's next session with `parameters` needs (a window
    /// with its web process running, the authority's host name resolved), so that session shows
    /// its page sooner. Called on the main thread by ``WebAuthSession/prewarm(parameters:authorityHost:environment:)``;
    /// cheap to call again. The default does nothing.
    @MainActor
    func prewarm(parameters: WebviewParameters, authorityHost: String?)

    /// Makes the session for one sign-in. Throw a ``WebAuthError`` for parameters it cannot honour.
    @MainActor
    func makeSession(for request: WebAuthRequest, reporter: WebAuthSessionReporter) throws
        -> any WebviewProviderSession
}

extension WebviewProvider {
    public var priority: Int { 0 }
    public var requiresDisplay: Bool { true }
    public var supportsCustomWebview: Bool { false }
    public var defaultTimeout: Duration? { nil }
    public var brokerSchemes: Set<String> { [] }
    @MainActor public func prewarm(parameters: WebviewParameters, authorityHost: String?) {}
    public var origin: String? { nil }
    public func helpNotes(in environment: WebviewEnvironment) -> [String] { [] }
}

/// One sign-in as a provider runs it. All calls come on the main actor, in the order
/// `prepare`, `present`, `dismiss`; `dismiss` comes exactly once, however the session ended
/// (also when `prepare` or `present` threw, or the session was cancelled before `present`).
@MainActor
public protocol WebviewProviderSession: AnyObject, Sendable {
    /// Phase one: acquire what the session needs (a loopback port, say) and return the redirect
    /// URI the authorization request must carry. Return the requested URI when it does not change.
    func prepare() async throws -> URL
    /// Phase two: show `authorizationURL` to the person. Report loads, the redirect and failures
    /// to the session's reporter; throwing ends the session with that error.
    func present(authorizationURL: URL) throws
    /// Tear down everything the session made or attached: windows, signal handlers, listeners.
    /// After this, the provider reports nothing more (reports after the outcome are ignored anyway).
    ///
    /// The host calls it exactly once, however the session ended, on a later turn of the main
    /// loop (never inside the callback that reported the outcome), and resumes the caller only
    /// after it: hide what the person sees here, and defer heavy destruction (a window's, a web
    /// view's) to when the main loop is idle, so it never delays the caller. Between the outcome
    /// and `dismiss`, ``WebAuthSessionReporter/isFinished`` is true: act as ended (refuse further
    /// navigations, report nothing).
    func dismiss()
}

/// The kind of user agent a provider is. The policy maps `.authenticationSession` to
/// `.systemBrowser` and `.embedded` to `.embeddedView`, without naming any provider.
public enum WebviewProviderKind: Hashable, Sendable, CustomStringConvertible {
    /// The person's own browser (SSO with what they are signed in to there).
    case systemBrowser
    /// A web view inside the app.
    case embeddedView
    /// Anything else: a broker, a kiosk browser, a device-code flow on a terminal...
    case other

    public var description: String {
        switch self {
        case .systemBrowser: "system browser"
        case .embeddedView: "embedded view"
        case .other: "other"
        }
    }
}

/// Whether a provider can run in an environment, and why not.
public enum WebviewProviderAvailability: Hashable, Sendable {
    case available
    case unavailable(reason: String)

    public var isAvailable: Bool { self == .available }

    /// The reason it cannot run, or `nil` when it can.
    public var reason: String? {
        if case .unavailable(let reason) = self { return reason }
        return nil
    }
}

