import Foundation
import ScenarioSupport
import Testing
import TestTraits
import WebviewHost

@testable import SignIn

/// `PublicClientApplication` against a real Glewlwyd server, signing in through the
/// ``ScriptedBrowserProvider`` plugin.
@Suite(.serialized, .glewlwyd, .desktop)
struct GlewlwydSignInTests {
    let server: GlewlwydServer
    /// What the app registers: no port. The provider's prepare phase adds the one Glewlwyd knows.
    let requestedRedirect = URL(string: "http://127.0.0.1/callback")!

    init() throws {
        server = try #require(GlewlwydServer.current, "the suite trait starts Glewlwyd")
    }

    func makeApplication(clientID: String? = nil, clock: TestClock = TestClock()) throws -> PublicClientApplication {
        try PublicClientApplication(configuration: .init(
            clientID: clientID ?? server.clientID, authority: server.issuer, redirectURI: requestedRedirect,
            defaultScopes: ["openid", "profile", "email", "offline_access"], networkTimeout: 15,
            now: { clock.now }, tokenCacheStorage: InMemoryTokenCacheStorage()))
    }

    func provider(_ behavior: ScriptedBrowserProvider.Behavior) -> ScriptedBrowserProvider {
        ScriptedBrowserProvider(script: GlewlwydServer.browserScript, behavior: behavior, loopbackPort: 23682)
    }

    var alice: ScriptedBrowserProvider.Credentials { .init(username: server.username, password: server.password) }

    /// `acquireToken` with `provider` registered in a registry of its own; `inScope` runs in that
    /// registry's scope first (to set the scope's own settings).
    func acquireToken(
        _ app: PublicClientApplication, through provider: ScriptedBrowserProvider, prompt: Prompt? = nil,
        inScope: @Sendable () -> Void = {}
    ) async -> Result<AuthenticationResult, WebAuthError> {
        await WebviewProviderRegistry.withIsolatedRegistry {
            inScope()
            WebviewProviderRegistry.register(provider)
            let parameters = InteractiveTokenParameters(
                scopes: [], webviewParameters: .init(webviewType: .provider(provider.id)), prompt: prompt)
            do throws(WebAuthError) {
                return .success(try await app.acquireToken(with: parameters))
            } catch {
                return .failure(error)
            }
        }
    }

    func signedIn(clock: TestClock = TestClock()) async throws -> (PublicClientApplication, AuthenticationResult) {
        let app = try makeApplication(clock: clock)
        let result = try await acquireToken(app, through: provider(.signIn([alice]))).get()
        return (app, result)
    }

    func header(of jws: String) throws -> [String: Any] {
        let data = try #require(Base64URL.decode(jws.split(separator: ".")[0]))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    // MARK: - Interactive

    @Test func signsInWithVerifiedTokensThroughThePreparedRedirectURI() async throws {
        let app = try makeApplication()
        let browser = provider(.signIn([alice]))
        let result = try await acquireToken(app, through: browser).get()

        let claims = result.idTokenClaims
        #expect(!claims.subject.isEmpty)
        #expect(claims.name == server.userName)
        #expect(claims.email == server.userEmail)
        #expect(claims.issuer == server.issuer.absoluteString)
        #expect(claims.audience == [server.clientID])
        #expect(try header(of: result.idToken)["alg"] as? String == "RS256")
        #expect(result.account.subject == claims.subject)
        #expect(result.account.issuer == server.issuer.absoluteString)
        #expect(result.account.username == server.userEmail)
        #expect(result.account.name == server.userName)
        #expect(!result.accessToken.isEmpty)
        #expect(result.refreshToken != nil)
        #expect(Set(result.scopes).isSuperset(of: ["openid", "profile", "email"]))
        #expect(abs(result.expiresOn.timeIntervalSinceNow - 3600) < 120)
        #expect(app.accounts == [result.account])

        let authorizationURL = try #require(browser.log.authorizationURLs.first)
        let query = try #require(URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(query.first { $0.name == "redirect_uri" }?.value == "http://127.0.0.1:23682/callback")
        #expect(query.first { $0.name == "code_challenge_method" }?.value == "S256")
        #expect(browser.log.all.last == "dismissed")
    }

    @Test func verifiesAnES256IDTokenFromTheServer() async throws {
        let app = try makeApplication(clientID: server.es256ClientID)
        let result = try await acquireToken(app, through: provider(.signIn([alice]))).get()
        #expect(try header(of: result.idToken)["alg"] as? String == "ES256")
        #expect(result.idTokenClaims.audience == [server.es256ClientID])
    }

    @Test func wrongPasswordThenTheRightOne() async throws {
        let app = try makeApplication()
        let browser = provider(.signIn([.init(username: server.username, password: "not-her-password"), alice]))
        let result = try await acquireToken(app, through: browser).get()
        #expect(result.idTokenClaims.name == server.userName)
        let attempts = browser.log.all.filter { $0.hasPrefix("attempt ") }
        #expect(attempts.count == 2)
        #expect(attempts.first?.contains("wrong username or password") == true)
        #expect(attempts.last?.contains("exit 0") == true)
    }

    @Test func onlyWrongPasswordsEndTheSignInWithoutTokens() async throws {
        let app = try makeApplication()
        let result = await acquireToken(app, through: provider(.signIn([.init(username: server.username, password: "nope")])))
        #expect(throws: WebAuthError.self) { try result.get() }
        if case .failure(let error) = result {
            #expect(error.code == .userCanceled)
            #expect(error.message.contains("wrong username or password"))
        }
        #expect(app.accounts.isEmpty)
    }

    @Test func consentScreenIsShownForAClientNotYetGranted() async throws {
        try await server.setConsent(false, for: server.consentClientID)
        let app = try makeApplication(clientID: server.consentClientID)

        let refusing = provider(.signIn([alice], allowConsent: false))
        let refused = await acquireToken(app, through: refusing)
        #expect(throws: WebAuthError.self) { try refused.get() }
        #expect(refusing.log.all.contains { $0.contains("consent screen would be shown") })

        let granting = provider(.signIn([alice], allowConsent: true))
        let result = try await acquireToken(app, through: granting).get()
        #expect(granting.log.all.contains { $0.contains("consent screen: granting") })
        #expect(result.idTokenClaims.audience == [server.consentClientID])
    }

    @Test func serverErrorInTheCallbackIsAServerError() async throws {
        // prompt=none without a Glewlwyd session: the server redirects with error=interaction_required.
        let app = try makeApplication()
        let result = await acquireToken(app, through: provider(.signIn([alice])), prompt: Prompt.none)
        guard case .failure(let error) = result else {
            Issue.record("prompt=none without a session signed in")
            return
        }
        #expect(error.code == .server)
        #expect(error.serverError?.error == "interaction_required")
    }

    @Test func aReplayedCodeIsRefusedByTheTokenEndpoint() async throws {
        let app = try makeApplication()
        let browser = provider(.signIn([alice]))
        _ = try await acquireToken(app, through: browser).get()
        let redirect = try #require(browser.log.redirects.first)
        let usedCode = try #require(URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value)

        let result = await acquireToken(app, through: provider(.replay(code: usedCode)))
        guard case .failure(let error) = result else {
            Issue.record("a used authorization code was redeemed twice")
            return
        }
        #expect(error.code == .server)
        #expect(error.serverError?.error == "invalid_code")  // what Glewlwyd 2.7 answers (HTTP 403)
    }

    @Test func cancelEndsAHangingSignIn() async throws {
        let app = try makeApplication()
        let cancel = Task { @MainActor in
            try await Task.sleep(for: .milliseconds(500))
            app.cancelCurrentInteractiveSession()
        }
        let result = await acquireToken(app, through: provider(.hang))
        try await cancel.value
        guard case .failure(let error) = result else {
            Issue.record("a cancelled sign-in returned tokens")
            return
        }
        #expect(error.code == .canceled)
    }

    @Test func completionHandlerFormCallsBackOnTheMainQueue() async throws {
        let app = try makeApplication()
        let browser = provider(.signIn([alice]))
        let (result, onMain) = await WebviewProviderRegistry.withIsolatedRegistry {
            WebviewProviderRegistry.register(browser)
            return await withCheckedContinuation { continuation in
                app.acquireToken(with: .init(scopes: [], webviewParameters: .init(webviewType: .provider(browser.id)))) { result in
                    // Main thread or main-queue job: under swift-testing on Linux the main queue runs off thread 0.
                    continuation.resume(returning: (result, MainContext.isCurrent))
                }
            }
        }
        #expect(onMain)
        #expect(try result.get().idTokenClaims.name == server.userName)
    }

    // MARK: - Silent

    @Test func silentReturnsAValidAccessTokenAsIs() async throws {
        let (app, first) = try await signedIn()
        let again = try await app.acquireTokenSilent(with: .init(scopes: [], account: first.account))
        #expect(again.accessToken == first.accessToken)
        #expect(again.idToken == first.idToken)
    }

    @Test func silentRenewsAnExpiredAccessTokenWithTheRefreshToken() async throws {
        let clock = TestClock()
        let (app, first) = try await signedIn(clock: clock)
        // 56 minutes on: the 1-hour access token is within the 5-minute renewal margin,
        // while the ID token (also 1 hour) is still valid.
        clock.advance(by: 56 * 60)
        let renewed = try await app.acquireTokenSilent(with: .init(scopes: [], account: first.account))
        #expect(renewed.accessToken != first.accessToken)
        #expect(renewed.account == first.account)
        #expect(renewed.refreshToken == first.refreshToken, "Glewlwyd does not rotate: the old one is kept")
        #expect(renewed.expiresOn > first.expiresOn)
        let cached = try await app.acquireTokenSilent(with: .init(scopes: [], account: first.account))
        #expect(cached.accessToken == renewed.accessToken)
    }

    @Test func silentWithoutRefreshTokenNeedsInteraction() async throws {
        let clock = TestClock()
        let (app, first) = try await signedIn(clock: clock)
        await app.cache.removeRefreshTokens(of: first.account)
        clock.advance(by: 56 * 60)
        let error = try await silentError(app, first.account)
        #expect(error.code == .interactionRequired)
        #expect(error.message.contains("no refresh token"))
    }

    @Test func silentWithAGarbledRefreshTokenNeedsInteraction() async throws {
        let clock = TestClock()
        let (app, first) = try await signedIn(clock: clock)
        try await app.cache.replaceRefreshTokens(of: first.account, with: "garbage")
        clock.advance(by: 56 * 60)
        let error = try await silentError(app, first.account)
        #expect(error.code == .interactionRequired)
        // The refused refresh token is forgotten: the next try does not ask the server again.
        #expect(try await silentError(app, first.account).message.contains("no refresh token"))
    }

    @Test func silentWithARevokedRefreshTokenNeedsInteraction() async throws {
        let clock = TestClock()
        let (app, first) = try await signedIn(clock: clock)
        try await server.revokeRefreshTokens()
        clock.advance(by: 56 * 60)
        #expect(try await silentError(app, first.account).code == .interactionRequired)
    }

    @Test func silentForAnUnknownAccountNeedsInteraction() async throws {
        let app = try makeApplication()
        let stranger = Account(subject: "nobody", issuer: server.issuer.absoluteString, username: nil, name: nil)
        #expect(try await silentError(app, stranger).code == .interactionRequired)
    }

    func silentError(_ app: PublicClientApplication, _ account: Account) async throws -> WebAuthError {
        let result: Result<AuthenticationResult, WebAuthError>
        do throws(WebAuthError) {
            result = .success(try await app.acquireTokenSilent(with: .init(scopes: [], account: account)))
        } catch {
            result = .failure(error)
        }
        switch result {
        case .failure(let error): return error
        case .success(let tokens): throw GlewlwydError("silent acquisition succeeded with \(tokens.accessToken.prefix(12))...")
        }
    }
}
