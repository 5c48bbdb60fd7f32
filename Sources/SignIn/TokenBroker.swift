public import Foundation
public import WebviewHost

/// A broker: a program on the device (Microsoft's identity broker on D-Bus, a company's own)
/// that signs people in with the device's identity and returns tokens, in place of a web user
/// agent. It plugs into ``PublicClientApplication`` through ``TokenBrokerRegistry`` when the
/// app sets ``PublicClientApplicationConfiguration/usesTokenBroker``.
///
/// The contract for implementers:
/// - ``availability(for:)`` is cheap and never shows anything: it says whether the broker runs
///   (or can be started) and whether it handles the authority. Any answer other than
///   ``TokenBrokerAvailability/available`` sends the app down its usual flow.
/// - Every other call ends with a result or one ``WebviewHost/WebAuthError``; never zero, never
///   two. A broker that disappears mid-call ends the call at once with `brokerUnavailable`.
/// - Cancelling the task that awaits ``acquireTokenInteractively(_:)`` ends the broker's own flow
///   (Microsoft's: `cancelInteractiveFlow`) and the call with `canceled`.
/// - The broker keeps the tokens; the app's token cache never stores them.
/// - Nothing secret (tokens, the broker's raw responses) is logged or put in an error message.
public protocol TokenBroker: Sendable {
    /// Stable and unique among registered brokers (`"microsoft-identity-broker"`).
    var id: String { get }
    /// For logs and messages.
    var displayName: String { get }
    /// Brokers with a higher priority are asked first.
    var priority: Int { get }

    /// Whether this broker can serve an app signing in at `authority` now.
    func availability(for authority: URL) async -> TokenBrokerAvailability

    /// Signs the person in, showing the broker's own UI, and returns its tokens. Takes as long as
    /// the person needs (no time limit of its own).
    ///
    /// - Throws: a ``WebviewHost/WebAuthError``: `canceled` (task cancelled), `userCanceled`,
    ///   `consentRequired`, `interactionRequired`, `brokerUnavailable`, `protocolMismatch`,
    ///   `server`...
    func acquireTokenInteractively(_ request: TokenBrokerRequest) async throws(WebAuthError) -> TokenBrokerResult

    /// A token for `request.account` without showing anything.
    ///
    /// - Throws: `interactionRequired` when the broker needs the person (the account is unknown
    ///   to it, consent or a fresh sign-in is needed), and the interactive errors otherwise.
    func acquireTokenSilently(_ request: TokenBrokerRequest) async throws(WebAuthError) -> TokenBrokerResult

    /// The accounts the broker knows for this client (on a managed device: the device's).
    func accounts(for client: TokenBrokerClient) async throws(WebAuthError) -> [Account]

    /// Signs `account` out of this client at the broker (its tokens for the client are gone).
    func signOut(_ account: Account, for client: TokenBrokerClient) async throws(WebAuthError)

    /// The single-sign-on cookies the broker issues for a sign-in page (Microsoft's PRT SSO
    /// cookie), which an embedded sign-in sends to the page's host so that a managed device signs
    /// in without a password and passes the device's policies. Asked by
    /// ``PublicClientApplication/acquireToken(with:)`` before an embedded sign-in at an Entra ID
    /// authority when the broker is available but not used for the sign-in itself
    /// (``PublicClientApplicationConfiguration/usesBrokerSignInCookies``). Each cookie must be
    /// for `request.signInURL`'s host. The default has none.
    ///
    /// - Throws: anything; the sign-in then goes on without cookies (logged).
    func signInCookies(for request: TokenBrokerCookieRequest) async throws(WebAuthError) -> [SignInCookie]
}

extension TokenBroker {
    public var priority: Int { 0 }

    public func signInCookies(for request: TokenBrokerCookieRequest) async throws(WebAuthError) -> [SignInCookie] { [] }
}

/// What ``TokenBroker/signInCookies(for:)`` is asked for.
public struct TokenBrokerCookieRequest: Sendable {
    /// The app and authority.
    public var client: TokenBrokerClient
    /// The sign-in page the cookies are for: the authority's authorization endpoint.
    public var signInURL: URL
    /// The scopes of the sign-in, as for a token call.
    public var scopes: [String]
    /// The username the app suggested (``InteractiveTokenParameters/loginHint``): the broker's
    /// account of that name, else the broker's default account.
    public var loginHint: String?

    public init(client: TokenBrokerClient, signInURL: URL, scopes: [String], loginHint: String? = nil) {
        self.client = client
        self.signInURL = signInURL
        self.scopes = scopes
        self.loginHint = loginHint
    }
}
