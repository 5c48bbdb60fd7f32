public import Foundation
public import WebviewHost
import Synchronization

/// A scriptable provider for tests: it presents nothing and does what its ``Behavior`` says
/// (reach the redirect, fail, wait for a cancel...), recording every call in ``log``.
public struct FakeWebviewProvider: WebviewProvider {
    /// What the session does when presented, on the main actor.
    public typealias Behavior = @MainActor @Sendable (_ presentation: Presentation) throws -> Void

    /// What a ``Behavior`` is given.
    public struct Presentation: Sendable {
        public let authorizationURL: URL
        /// The redirect URI prepare returned.
        public let redirectURI: URL
        public let reporter: WebAuthSessionReporter
    }

    public var id: WebviewProviderID
    public var displayName: String
    public var priority: Int
    public var kind: WebviewProviderKind
    public var requiresDisplay: Bool
    public var supportsCustomWebview: Bool
    public var defaultTimeout: Duration?
    public var brokerSchemes: Set<String>
    /// What ``availability(in:)`` answers (for every environment).
    public var fixedAvailability: WebviewProviderAvailability
    /// Turns the requested redirect URI into the prepared one (a loopback provider adds a port).
    public var prepareRedirect: @Sendable (URL) throws -> URL
    /// Whether `prepare()` never returns until the session is dismissed (a provider stuck getting
    /// ready: a plugin that never answers, a listener that never binds).
    public var preparesUntilDismissed: Bool
    public var behavior: Behavior
    public let log = FakeProviderLog()

    public init(
        id: WebviewProviderID = "fake",
        displayName: String = "Fake provider",
        priority: Int = 0,
        kind: WebviewProviderKind = .other,
        requiresDisplay: Bool = false,
        supportsCustomWebview: Bool = false,
        defaultTimeout: Duration? = nil,
        brokerSchemes: Set<String> = [],
        availability: WebviewProviderAvailability = .available,
        prepareRedirect: @escaping @Sendable (URL) throws -> URL = { $0 },
        preparesUntilDismissed: Bool = false,
        behavior: @escaping Behavior = FakeWebviewProvider.redirect(query: "code=fake-code")
    ) {
        self.id = id
        self.displayName = displayName
        self.priority = priority
        self.kind = kind
        self.requiresDisplay = requiresDisplay
        self.supportsCustomWebview = supportsCustomWebview
        self.defaultTimeout = defaultTimeout
        self.brokerSchemes = brokerSchemes
        self.fixedAvailability = availability
        self.prepareRedirect = prepareRedirect
        self.preparesUntilDismissed = preparesUntilDismissed
        self.behavior = behavior
    }

    public func availability(in environment: WebviewEnvironment) -> WebviewProviderAvailability {
        fixedAvailability
    }

    /// Records the call in ``log``; there is nothing to prepare.
    @MainActor
    public func prewarm(parameters: WebviewParameters, authorityHost: String?) {
        log.record(.prewarmed(authorityHost))
    }

    @MainActor
    public func makeSession(for request: WebAuthRequest, reporter: WebAuthSessionReporter) throws
        -> any WebviewProviderSession
    {
        log.record(.made)
        return FakeProviderSession(
            requested: request.redirectURI.url, reporter: reporter, prepareRedirect: prepareRedirect,
            preparesUntilDismissed: preparesUntilDismissed, behavior: behavior, log: log)
    }

    // MARK: Behaviours

    /// Reports a load of the authorization URL, then the redirect with `query` appended
    /// (`state` is echoed from the authorization URL unless `query` sets it).
    public static func redirect(query: String, fragment: String? = nil) -> Behavior {
        { presentation in
            presentation.reporter.didStartLoad(presentation.authorizationURL)
            presentation.reporter.didFinishLoad(presentation.authorizationURL)
            presentation.reporter.handleRedirect(
                callback(for: presentation, query: query, fragment: fragment))
        }
    }

    /// Ends the session with `error`.
    public static func fail(_ error: WebAuthError) -> Behavior {
        { presentation in
            presentation.reporter.didStartLoad(presentation.authorizationURL)
            presentation.reporter.fail(error)
        }
    }

    /// Shows a page and waits: only a cancel or the timeout ends the session.
    public static var waitForever: Behavior {
        { presentation in presentation.reporter.didStartLoad(presentation.authorizationURL) }
    }

    /// The callback URL `redirect(query:)` reports.
    public static func callback(for presentation: Presentation, query: String, fragment: String? = nil) -> URL {
        var text = presentation.redirectURI.absoluteString + "?" + query
        let state = URLComponents(url: presentation.authorizationURL, resolvingAgainstBaseURL: false)?
            .queryItems?.first { $0.name == "state" }?.value
        if let state, !query.contains("state=") {
            text += "&state=" + (state.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? state)
        }
        if let fragment { text += "#" + fragment }
        return URL(string: text)!
    }
}

/// The calls a ``FakeWebviewProvider`` received, in order. Safe from any thread.
public final class FakeProviderLog: Sendable {
    public enum Call: Hashable, Sendable {
        case made, prepared, presented(URL), dismissed
        /// ``FakeWebviewProvider/prewarm(parameters:authorityHost:)`` with the authority's host.
        case prewarmed(String?)
    }

    private let calls = Mutex<[Call]>([])

    public init() {}

    func record(_ call: Call) { calls.withLock { $0.append(call) } }

    /// Every call so far.
    public var all: [Call] { calls.withLock { $0 } }
    /// How many times `dismiss()` was called.
    public var dismissCount: Int { all.filter { $0 == .dismissed }.count }
}


/// The session a ``FakeWebviewProvider`` makes.
@MainActor
final class FakeProviderSession: WebviewProviderSession {
    private let requested: URL
    private let reporter: WebAuthSessionReporter
    private let prepareRedirect: @Sendable (URL) throws -> URL
    private let preparesUntilDismissed: Bool
    private let behavior: FakeWebviewProvider.Behavior
    private let log: FakeProviderLog
    private var prepared: URL?
    private var stuck: CheckedContinuation<Void, Never>?
    private var dismissed = false

    init(
        requested: URL, reporter: WebAuthSessionReporter, prepareRedirect: @escaping @Sendable (URL) throws -> URL,
        preparesUntilDismissed: Bool, behavior: @escaping FakeWebviewProvider.Behavior, log: FakeProviderLog
    ) {
        self.requested = requested
        self.reporter = reporter
        self.prepareRedirect = prepareRedirect
        self.preparesUntilDismissed = preparesUntilDismissed
        self.behavior = behavior
        self.log = log
    }

    func prepare() async throws -> URL {
        log.record(.prepared)
        if preparesUntilDismissed, !dismissed {
            await withCheckedContinuation { stuck = $0 }
            throw WebAuthError(.canceled, "The fake provider was dismissed while it prepared.")
        }
        let url = try prepareRedirect(requested)
        prepared = url
        return url
    }

    func present(authorizationURL: URL) throws {
        log.record(.presented(authorizationURL))
        try behavior(.init(authorizationURL: authorizationURL, redirectURI: prepared ?? requested, reporter: reporter))
    }

    func dismiss() {
        log.record(.dismissed)
        dismissed = true
        stuck?.resume()
        stuck = nil
    }
}
