public import Foundation

/// A sign-in moving from an embedded view to the person's browser, inside the same session:
/// what ``WebAuthEvent/willSwitchToSystemBrowser(_:)`` carries and why it happened.
///
/// The browser cannot deliver to a redirect the view intercepted, so the host starts a new
/// authorization request for a redirect URI the browser can use (the app's
/// ``AuthorizationRequestBuilder`` makes it, with its own `state`); the view's request is dead.
public struct SystemBrowserHandOver: Sendable, Hashable, CustomStringConvertible {
    /// Why the sign-in moves. A struct, not an enum, so plugins can name reasons of their own.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The page asked for a passkey or a security key (`navigator.credentials.get/create`
        /// with `publicKey`): WebKitGTK has no WebAuthn.
        public static let webAuthn = Reason("webAuthn")
        /// The identity provider refused embedded user agents (Google's `disallowed_useragent`,
        /// or one of the app's ``EmbeddedAgentRefusal`` rules).
        public static let embeddedAgentRefused = Reason("embeddedAgentRefused")
        /// The person chose "Continue in your browser" in the library's window.
        public static let personChose = Reason("personChose")
        /// The app called ``WebAuthSession/continueInSystemBrowser()``.
        public static let appRequested = Reason("appRequested")
    }

    public let reason: Reason
    /// A sentence for logs and people: what the page did, or which rule matched.
    public let detail: String
    /// The page the embedded view showed when it happened, when known.
    public let pageURL: URL?

    public init(reason: Reason, detail: String, pageURL: URL? = nil) {
        self.reason = reason
        self.detail = detail
        self.pageURL = pageURL
    }

    public var description: String { "\(reason): \(detail)" }
}

/// What an embedded sign-in does when its page needs what the view cannot do (a passkey, a
/// provider that refuses embedded agents): ``WebviewParameters/systemBrowserHandOver``.
///
/// The policy decides the page's triggers. The person's "Continue in your browser" button is
/// shown unless the policy is ``never``; the app's own ``WebAuthSession/continueInSystemBrowser()``
/// always hands over.
public enum SystemBrowserHandOverPolicy: Hashable, Sendable {
    /// The sign-in goes on in the person's browser at once.
    case automatic
    /// A question over the sign-in view asks the person first; if they decline, the session goes
    /// on in the view (a passkey request is refused there, so the page can offer another way).
    case askFirst
    /// Never: the session ends with ``WebAuthError/Code/systemBrowserRequired``, the reason in
    /// ``WebAuthError/handOver``, so the app can decide (a new session with `.authenticationSession`).
    case never
}

/// The authorization request for one redirect URI: the URL to open and the `state` it carries
/// (checked on the callback). An ``AuthorizationRequestBuilder`` makes one per redirect URI.
public struct AuthorizationRequestURL: Sendable, Hashable {
    public var url: URL
    public var state: String?
    public init(_ url: URL, state: String?) {
        self.url = url
        self.state = state
    }
}

/// Builds a fresh authorization request (its own `state`, nonce and PKCE pair) for
/// `redirectURI`. Called on the main thread: once for the first request, and again when the
/// sign-in is handed over to the person's browser, with the redirect URI the browser delivers to.
public typealias AuthorizationRequestBuilder = @MainActor @Sendable (_ redirectURI: URL) throws -> AuthorizationRequestURL
