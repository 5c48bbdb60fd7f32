import Foundation
import Logging
public import WebviewHost

/// Signing in on another device: the OAuth 2.0 Device Authorization Grant (RFC 8628), a call of
/// its own, never a fallback of ``acquireToken(with:)``.
extension PublicClientApplication {
    static let deviceCodeLogger = Logger(label: "SignIn.deviceCode")

    /// Asks the provider for a code, shows it (``DeviceCodeParameters/display``), and waits while
    /// the person signs in with it on another device (a phone, a computer with a browser), then
    /// returns verified tokens and keeps them in the token cache as ``acquireToken(with:)`` does.
    ///
    /// It runs as a ``WebviewHost/WebAuthSession`` like every interactive sign-in: it holds the
    /// one-session slot (it fails with `sessionAlreadyInProgress` while another sign-in runs, and
    /// another fails so while it runs), its steps are posted as the `webAuth*` notifications
    /// (`didStartLoad` and `didFinishLoad` with the verification URL once the code is shown, then
    /// `didComplete` or `didFail`), and it ends at ``DeviceCodeParameters/timeout`` (by default
    /// when the code expires).
    ///
    /// The provider is asked every `interval` seconds (5 when it says nothing); `slow_down` adds
    /// 5 seconds for good; a network failure is tried again until the code expires. Cancel with
    /// ``cancelCurrentInteractiveSession()``, the window's Cancel, or by cancelling the task: the
    /// asking stops at once.
    ///
    /// - Throws: `deviceCodeExpired` (the code expired first), `deviceCodeDenied` (the person
    ///   refused), `deviceCodeBlocked` (the organization blocks this way of signing in: sign in
    ///   with a browser instead), `canceled`, `timedOut`, `sessionAlreadyInProgress`,
    ///   `invalidParameters` (the provider has no device authorization endpoint), `server` with
    ///   any other error of the provider, as it said it, `invalidResponse` for an answer or ID
    ///   token that fails a check (also a missing ID token).
    @MainActor
    public func acquireTokenWithDeviceCode(with parameters: DeviceCodeParameters) async throws(WebAuthError) -> AuthenticationResult {
        try await interactions.run(onStep: parameters.onStep) { interaction throws(WebAuthError) in
            try await openTokenCacheBeforeSignIn()
            let metadata = try await authority.providerMetadata()
            guard let endpoint = parameters.deviceAuthorizationEndpoint ?? metadata.deviceAuthorizationEndpoint else {
                throw WebAuthError(
                    .invalidParameters,
                    "The provider \(configuration.authority) offers no device authorization endpoint (device_authorization_endpoint); "
                        + "sign in with acquireToken, or give DeviceCodeParameters.deviceAuthorizationEndpoint.")
            }
            let scopes = ScopeSet.normalized(["openid"] + configuration.defaultScopes + parameters.scopes)
            let session = WebAuthSession(redirectURI: configuration.redirectURI, parameters: WebviewParameters(timeout: parameters.timeout))
            interaction.attach(session)
            let issued = try await session.signInOnAnotherDevice { progress throws(WebAuthError) in
                let code = try await self.requestDeviceCode(at: endpoint, scopes: scopes)
                // Ended (cancelled, timed out) while the code was asked for: show nothing.
                if Task.isCancelled { throw WebAuthError.canceled() }
                let challenge = code.public
                let close = DeviceCodePresentation.show(challenge, display: parameters.display) { interaction.cancel() }
                let lifetime = challenge.expiresOn.timeIntervalSince(self.configuration.now())
                progress.codeShown(
                    at: challenge.verificationURI, lifetime: .milliseconds(Int64(max(0, lifetime) * 1000)), expiry: Self.expired(),
                    whenEnded: close)
                return try await self.pollForTokens(code, scopes: scopes)
            }
            return await keep(issued.entry, now: issued.receivedAt, afterSignIn: true)
        }
    }

    /// A device code and what to show for it.
    struct IssuedDeviceCode: Sendable {
        var deviceCode: String
        var `public`: DeviceCodeChallenge
    }

    /// The device authorization request (RFC 8628 3.1) and its answer (3.2).
    private func requestDeviceCode(at endpoint: URL, scopes: [String]) async throws(WebAuthError) -> IssuedDeviceCode {
        var form = [("client_id", configuration.clientID), ("scope", scopes.joined(separator: " "))]
        if try await authority.sendsClientInfo() { form.append(("client_info", "1")) }
        let (status, body) = try await authority.connection.postForm(endpoint, form)
        guard status == 200 else {
            if let oauthError = try? JSONDecoder().decode(OAuthErrorResponse.self, from: body) {
                throw Self.deviceCodeError(oauthError.serverError)
            }
            throw WebAuthError(.server, "The device authorization endpoint \(endpoint) answered HTTP \(status).", url: endpoint)
        }
        let answer: DeviceAuthorizationResponse
        do {
            answer = try JSONDecoder().decode(DeviceAuthorizationResponse.self, from: body)
        } catch {
            throw WebAuthError(
                .invalidResponse, "The device authorization endpoint's answer lacks device_code, user_code, verification_uri or expires_in.",
                url: endpoint)
        }
        guard let verification = (answer.verificationURI ?? answer.verificationURL).flatMap(URL.init(string:)), verification.isHTTPSOrLoopback,
            !answer.userCode.isEmpty, !answer.deviceCode.isEmpty, answer.expiresIn > 0
        else {
            throw WebAuthError(
                .invalidResponse, "The device authorization endpoint's answer has no usable verification_uri, user_code or expires_in.",
                url: endpoint)
        }
        let complete = answer.verificationURIComplete.flatMap(URL.init(string:)).flatMap { $0.isHTTPSOrLoopback ? $0 : nil }
        let interval = max(1, min(answer.interval ?? 5, answer.expiresIn))
        return IssuedDeviceCode(
            deviceCode: answer.deviceCode,
            public: DeviceCodeChallenge(
                userCode: answer.userCode, verificationURI: verification, verificationURIComplete: complete,
                expiresOn: configuration.now().addingTimeInterval(answer.expiresIn), interval: .milliseconds(Int64(interval * 1000)),
                message: answer.message))
    }

    /// Asks the token endpoint until the person is done or the code expires; cancelling the
    /// task (the session does when it ends) stops it at once, in its wait too.
    private func pollForTokens(_ code: IssuedDeviceCode, scopes: [String]) async throws(WebAuthError) -> TokenExchange.Issued {
        var interval = code.public.interval
        let expiresOn = code.public.expiresOn
        while true {
            let remaining = expiresOn.timeIntervalSince(configuration.now())
            guard remaining > 0 else { throw Self.expired() }
            do {
                try await Task.sleep(for: min(interval, .milliseconds(Int64(remaining * 1000))))
            } catch {
                throw WebAuthError.canceled()
            }
            guard expiresOn.timeIntervalSince(configuration.now()) > 0 else { throw Self.expired() }
            let outcome: Authority.GrantOutcome
            do throws(WebAuthError) {
                outcome = try await authority.requestTokens([
                    ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                    ("device_code", code.deviceCode),
                    ("client_id", configuration.clientID),
                ])
            } catch where error.code == .network || (error.code == .server && error.serverError == nil) {
                if Task.isCancelled { throw WebAuthError.canceled() }
                // The network or the server failed (a dropped connection, a 5xx): ask again
                // until the code expires, as the person may still be signing in.
                Self.deviceCodeLogger.notice("asking for the device code's tokens failed; trying again", metadata: ["reason": "\(error.message)"])
                continue
            }
            switch outcome {
            case .tokens(let tokens):
                return try await exchange.issued(from: tokens, scopes: scopes)
            case .refused(_, let oauthError?) where oauthError.error == "authorization_pending":
                continue
            case .refused(_, let oauthError?) where oauthError.error == "slow_down":
                interval += .seconds(5)  // RFC 8628 3.5: for this and every later request
            case .refused(_, let oauthError?):
                throw Self.deviceCodeError(oauthError.serverError)
            case .refused(let status, nil):
                if status == 429 || status >= 500 { continue }
                throw WebAuthError(.server, "The token endpoint refused the device code (HTTP \(status), no OAuth error given).")
            }
        }
    }

    private static func expired() -> WebAuthError {
        WebAuthError(.deviceCodeExpired, "The code expired before the sign-in was finished on the other device; start again for a new code.")
    }

    /// The provider's error for a device code, as a code an app can act on.
    static func deviceCodeError(_ error: WebAuthError.ServerError) -> WebAuthError {
        let text = [error.error, error.errorDescription ?? ""].joined(separator: " ")
        switch error.error {
        case "expired_token":
            return WebAuthError(.deviceCodeExpired, "The code expired before the sign-in was finished on the other device; start again for a new code.", serverError: error)
        case "access_denied" where !Self.isOrganizationRefusal(text):
            return WebAuthError(.deviceCodeDenied, "The sign-in was refused on the other device.", serverError: error)
        default:
            if Self.isOrganizationRefusal(text) {
                return WebAuthError(
                    .deviceCodeBlocked,
                    "Your organization does not allow signing in with a code on another device. Sign in with a browser instead.",
                    serverError: error)
            }
            return WebAuthError.server(error)
        }
    }

    /// Microsoft Entra ID's refusals by policy (Conditional Access blocking the device code flow):
    /// AADSTS53003 (blocked by Conditional Access), AADSTS50097/530033/53000-53004 (device
    /// requirements), and a `(authentication|device code) flow is blocked` description.
    static func isOrganizationRefusal(_ text: String) -> Bool {
        let lowered = text.lowercased()
        let codes = ["aadsts53003", "aadsts53000", "aadsts53001", "aadsts53002", "aadsts53004", "aadsts530033", "aadsts50097"]
        return codes.contains { lowered.contains($0) } || lowered.contains("conditional access") || lowered.contains("flow is blocked")
    }
}
