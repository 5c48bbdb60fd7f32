public import Foundation
import GLibSupport
import Logging
public import SignIn
public import WebviewHost

/// Microsoft's identity broker (`microsoft-identity-broker`, installed with `intune-portal`),
/// spoken to directly over the session bus: `com.microsoft.identity.Broker1` on
/// `com.microsoft.identity.broker1`, with GIO's GDBus (no toolkit, no closed runtime).
///
/// Register it and turn brokering on in the app's configuration:
/// ```swift
/// TokenBrokerRegistry.register(MicrosoftIdentityBroker())
/// var configuration = PublicClientApplicationConfiguration(clientID: ..., authority: ..., redirectURI: ...)
/// configuration.usesTokenBroker = true
/// ```
/// It serves Entra ID authorities (not B2C, not AD FS) when the broker runs or D-Bus can start
/// it; otherwise the app signs in through its web flow. The interactive call has no time limit
/// (the broker shows its own window); cancelling it sends `cancelInteractiveFlow`.
///
/// Each call sends what current clients of the real broker send (sso-mib, linux-entra-sso and
/// Microsoft Edge's own request, field by field; see `BrokerRequest`): `authorizationType` 6 for
/// an interactive call and 1 for a silent one, the broker's own account object inside
/// `authParameters` only, the app's scopes as asked, `uxContextHandle` -1. Answers are read in
/// the shapes of brokers 2.0.1 and 2.0.2 and later: errors by their numeric MSALRuntime `status`
/// (2 is interaction required, 7 the person cancelled, ...; names are read too), an answer
/// without an account gives the account asked for or the one its ID token names. A D-Bus error
/// from a broker that is running is ``WebviewHost/WebAuthError/Code/server``, one from a broker
/// that is absent or went away ``SignIn/WebAuthError/Code/brokerUnavailable``; the broker's
/// own values stay in the error's ``SignIn/TokenBrokerError``.
public final class MicrosoftIdentityBroker: TokenBroker {
    public let id = "microsoft-identity-broker"
    public let displayName = "Microsoft identity broker"
    public let priority: Int

    /// The redirect URI sent to the broker, registered for the app at Entra ID.
    public let redirectURI: URL
    /// The authority hosts served (Entra ID's clouds by default).
    public let authorityHosts: Set<String>
    /// When set, the parent window's X11 window id (a number, from the app's toolkit through
    /// `ToolkitIntegration`) is sent under this key of an interactive call's `authParameters`;
    /// nothing is sent on Wayland, where the window has no X11 id. The broker's own key for it is
    /// not public (clients send `uxContextHandle: -1`, no window); `nil` (the default) sends none.
    public let parentWindowKey: String?

    private let bus: BrokerBus
    private let book = BrokerAccountBook()
    private static let logger = Logger(label: "MicrosoftIdentityBroker")

    /// - Parameters:
    ///   - busAddress: the D-Bus address of the session bus; `nil` uses the session's own.
    ///   - redirectURI: what the app registered for brokered sign-in.
    ///   - authorityHosts: Entra ID hosts served; others fall back to the web flow.
    ///   - callTimeout: the limit of every call but the interactive one, which has none.
    public init(
        busAddress: String? = nil,
        redirectURI: URL = URL(string: "https://login.microsoftonline.com/common/oauth2/nativeclient")!,
        authorityHosts: Set<String> = MicrosoftIdentityBroker.entraHosts,
        callTimeout: Duration = .seconds(60),
        parentWindowKey: String? = nil,
        priority: Int = 0
    ) {
        bus = BrokerBus(address: busAddress, callTimeout: callTimeout)
        self.redirectURI = redirectURI
        self.authorityHosts = Set(authorityHosts.map { $0.lowercased() })
        self.parentWindowKey = parentWindowKey
        self.priority = priority
    }

    /// The sign-in hosts of Entra ID's clouds.
    public static var entraHosts: Set<String> { MicrosoftAuthority.entraHosts }

    // MARK: - TokenBroker

    public func availability(for authority: URL) async -> TokenBrokerAvailability {
        if let why = MicrosoftAuthority.whyNotBrokered(authority, hosts: authorityHosts) { return .declinesAuthority(reason: why) }
        switch await bus.brokerIsReachable() {
        case .success(true): return .available
        case .success(false): return .unavailable(reason: "\(BrokerBus.busName) is not on the session bus and cannot be started")
        case .failure(let failure): return .unavailable(reason: "\(failure)")
        }
    }

    public func acquireTokenInteractively(_ request: TokenBrokerRequest) async throws(WebAuthError) -> TokenBrokerResult {
        var parent: (key: String, value: UInt64)?
        if let parentWindowKey, let window = request.parentWindow {
            // "x11:<hex XID>" on X11; Wayland handles have no X11 form.
            let identifier = await MainActor.run { ToolkitIntegration.current?.parentIdentifier(of: ToolkitWindow(rawValue: window.address)) }
            if let identifier, identifier.hasPrefix("x11:"), let xid = UInt64(identifier.dropFirst(4), radix: 16) {
                parent = (parentWindowKey, xid)
            }
        }
        let body = BrokerRequest.interactive(
            client: request.client, redirectURI: redirectURI, scopes: request.scopes, account: request.account.flatMap(book.object(for:)),
            loginHint: request.loginHint, prompt: request.prompt, parentWindow: parent)
        let correlationID = UUID().uuidString.lowercased()
        let response: BrokerJSON.Object
        do throws(WebAuthError) {
            response = try await call("acquireTokenInteractively", body, correlationID: correlationID, interactive: true)
        } catch {
            if error.code == .canceled {
                // The person may be looking at the broker's window: close it.
                bus.sendToBroker("cancelInteractiveFlow", correlationID: correlationID, request: BrokerJSON.string(BrokerRequest.cancel()))
            }
            throw error
        }
        return try tokens(from: response, requested: request)
    }

    public func acquireTokenSilently(_ request: TokenBrokerRequest) async throws(WebAuthError) -> TokenBrokerResult {
        guard let account = request.account else {
            throw WebAuthError(.interactionRequired, "A silent call needs the account signed in earlier; call acquireToken first.")
        }
        guard let object = try await brokerObject(for: account, client: request.client) else {
            throw WebAuthError(.interactionRequired, "The identity broker does not know \(account) for this app; call acquireToken to sign in.")
        }
        let body = BrokerRequest.silent(client: request.client, redirectURI: redirectURI, scopes: request.scopes, account: object)
        let response = try await call("acquireTokenSilently", body, correlationID: UUID().uuidString.lowercased(), interactive: false)
        return try tokens(from: response, requested: request)
    }

    public func accounts(for client: TokenBrokerClient) async throws(WebAuthError) -> [Account] {
        let response = try await call(
            "getAccounts", BrokerRequest.accounts(client: client, redirectURI: redirectURI), correlationID: UUID().uuidString.lowercased(),
            interactive: false)
        guard let list = response["accounts"] as? [Any] else {
            throw WebAuthError(.protocolMismatch, "The identity broker's getAccounts answer has no \"accounts\" list.")
        }
        return list.compactMap { ($0 as? BrokerJSON.Object).flatMap(book.account(for:)) }
    }

    public func signOut(_ account: Account, for client: TokenBrokerClient) async throws(WebAuthError) {
        guard let object = try await brokerObject(for: account, client: client) else { return }
        _ = try await call(
            "removeAccount", BrokerRequest.remove(client: client, account: object), correlationID: UUID().uuidString.lowercased(),
            interactive: false)
        book.forget(account)
    }

    /// The PRT SSO cookie (`acquirePrtSsoCookie`) for `request.signInURL`, for the broker's
    /// account named by the login hint, else its default account (the first `getAccounts`
    /// lists, as linux-entra-sso takes it): what a managed device's browser sends to Entra ID to
    /// sign in without a password. Read in both shapes: `cookieItems` (a list of
    /// `{cookieName, cookieContent}`, brokers 2.0.2 and later) and the top-level `cookieName` and
    /// `cookieContent` of broker 2.0.1. No account at the broker: no cookie.
    public func signInCookies(for request: TokenBrokerCookieRequest) async throws(WebAuthError) -> [SignInCookie] {
        let listed = try await call(
            "getAccounts", BrokerRequest.accounts(client: request.client, redirectURI: redirectURI),
            correlationID: UUID().uuidString.lowercased(), interactive: false)
        let objects = (listed["accounts"] as? [Any] ?? []).compactMap { $0 as? BrokerJSON.Object }
        let hint = request.loginHint?.lowercased()
        guard let object = objects.first(where: { hint != nil && ($0["username"] as? String)?.lowercased() == hint }) ?? objects.first else {
            Self.logger.info("the identity broker has no account; no sign-in cookie")
            return []
        }
        let body = BrokerRequest.ssoCookie(
            client: request.client, redirectURI: redirectURI, scopes: request.scopes, account: object, ssoURL: request.signInURL)
        let response = try await call("acquirePrtSsoCookie", body, correlationID: UUID().uuidString.lowercased(), interactive: false)
        var items = (response["cookieItems"] as? [Any] ?? []).compactMap { $0 as? BrokerJSON.Object }
        if items.isEmpty, response["cookieName"] != nil { items = [response] }
        let cookies = items.compactMap { item -> SignInCookie? in
            guard let name = item["cookieName"] as? String, let content = item["cookieContent"] as? String, !name.isEmpty, !content.isEmpty
            else { return nil }
            return SignInCookie(name: name, value: content, for: request.signInURL)
        }
        if cookies.isEmpty {
            throw WebAuthError(.protocolMismatch, "The identity broker's acquirePrtSsoCookie answer has no cookie.")
        }
        return cookies
    }

    /// The broker's version (`getLinuxBrokerVersion`'s `linuxBrokerVersion`), for diagnosis.
    public func brokerVersion() async throws(WebAuthError) -> String? {
        let response = try await call(
            "getLinuxBrokerVersion", BrokerRequest.version(), correlationID: UUID().uuidString.lowercased(), interactive: false)
        return BrokerJSON.text(response["linuxBrokerVersion"])
    }

    // MARK: - Private

    private func brokerObject(for account: Account, client: TokenBrokerClient) async throws(WebAuthError) -> BrokerJSON.Object? {
        if let known = book.object(for: account) { return known }
        _ = try await accounts(for: client)  // another run signed in: the broker still knows the account
        return book.object(for: account)
    }

    private func call(_ method: String, _ body: BrokerJSON.Object, correlationID: String, interactive: Bool) async throws(WebAuthError) -> BrokerJSON.Object {
        Self.logger.debug("calling the identity broker", metadata: ["method": "\(method)", "correlationId": "\(correlationID)"])
        switch await bus.callBroker(method, correlationID: correlationID, request: BrokerJSON.string(body), interactive: interactive) {
        case .failure(.canceled):
            throw WebAuthError.canceled()
        case .failure(.unavailable(let why)):
            Self.logger.info("identity broker unavailable", metadata: ["method": "\(method)", "why": "\(why)"])
            throw WebAuthError(
                .brokerUnavailable, "The identity broker is not available (\(why)).",
                underlyingError: TokenBrokerError(broker: id, transport: why))
        case .failure(.mismatch(let why)):
            throw WebAuthError(
                .protocolMismatch, "The identity broker does not speak the expected protocol (\(why)).",
                underlyingError: TokenBrokerError(broker: id, transport: why))
        case .failure(.failed(let why)):
            // A broker that is running answered a D-Bus error (himmelblau's answers every failure so).
            Self.logger.info("identity broker failed", metadata: ["method": "\(method)", "why": "\(why)"])
            throw WebAuthError(
                .server, "The identity broker failed to answer \(method) (\(why)).", serverError: .init(error: "broker_failed"),
                underlyingError: TokenBrokerError(broker: id, transport: why))
        case .success(let text):
            if text.isEmpty {
                // A compatible broker whose daemon gave no answer replies with nothing (himmelblau).
                throw WebAuthError(
                    .server, "The identity broker answered \(method) with nothing.", serverError: .init(error: "broker_failed"),
                    underlyingError: TokenBrokerError(broker: id, transport: "an empty answer"))
            }
            guard let response = BrokerJSON.object(from: Data(text.utf8)) else {
                throw WebAuthError(.protocolMismatch, "The identity broker's answer to \(method) is not a JSON object.")
            }
            if let error = BrokerJSON.error(in: response, broker: id) {
                Self.logger.info("identity broker refused", metadata: ["method": "\(method)", "code": "\(error.code)"])
                throw error
            }
            return response
        }
    }

    private func tokens(from response: BrokerJSON.Object, requested: TokenBrokerRequest) throws(WebAuthError) -> TokenBrokerResult {
        guard let token = response["brokerTokenResponse"] as? BrokerJSON.Object else {
            throw WebAuthError(.protocolMismatch, "The identity broker's answer has neither \"brokerTokenResponse\" nor \"error\".")
        }
        guard let accessToken = token["accessToken"] as? String, !accessToken.isEmpty else {
            throw WebAuthError(.protocolMismatch, "The identity broker's token response has no access token.")
        }
        guard let idToken = token["idToken"] as? String, !idToken.isEmpty else {
            throw WebAuthError(.protocolMismatch, "The identity broker's token response has no ID token.")
        }
        guard let expiresOn = BrokerJSON.date(token["expiresOn"]) else {
            throw WebAuthError(.protocolMismatch, "The identity broker's token response has no usable \"expiresOn\".")
        }
        let account: Account
        if let object = BrokerJSON.account(in: response), let made = book.account(for: object) {
            account = made
        } else if let asked = requested.account {
            // No account in the answer (broker 3.0.1, himmelblau): the one asked for (as sso-mib
            // does since 75b2504).
            account = asked
        } else if let named = BrokerJSON.account(fromIDToken: idToken) {
            // An interactive sign-in without a hint: the person the broker's ID token names.
            account = named
        } else {
            throw WebAuthError(
                .protocolMismatch, "The identity broker's token response names no account, and its ID token names nobody either.")
        }
        return TokenBrokerResult(
            accessToken: accessToken, expiresOn: expiresOn, scopes: BrokerJSON.scopes(token["grantedScopes"]) ?? requested.scopes,
            idToken: idToken, account: account)
    }
}
