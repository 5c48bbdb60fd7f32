import Foundation
import ScenarioSupport
import Synchronization
import Testing
import WebviewHost

@testable import SignIn

/// Issue 35: the device-code sign-in is a `WebAuthSession` like every other interactive sign-in:
/// the one-session slot, the notifications, a timeout, cancel through the same paths, and what
/// showed the code closed before the caller resumes.
extension DeviceCodeTests {
    /// Every event of the session whose first step names `server` (other suites' sessions run
    /// beside it in this process, and an observer of all sessions sees theirs too).
    @MainActor
    final class Events {
        private(set) var seen: [String] = []
        private var observation: WebAuthObservation?
        private var session: WebAuthSession?

        init(on server: URL) {
            observation = WebAuthSession.observeAll { [weak self] session, event in
                guard let self else { return }
                if self.session == nil, case .didStartLoad(let url) = event, url.port == server.port { self.session = session }
                guard self.session === session else { return }
                let url: URL? = switch event {
                case .didStartLoad(let url), .didFinishLoad(let url), .didComplete(let url), .willSwitchToBrokerApp(let url): url
                case .didFail, .willSwitchToSystemBrowser: nil
                }
                self.seen.append([event.kind.rawValue, url?.path].compactMap { $0 }.joined(separator: " "))
            }
        }

        func stop() { observation = nil }
    }

    @Test @MainActor func theDeviceCodeSignInPostsTheSessionNotificationsInOrder() async throws {
        let server = try await Server.start("approve")
        defer { server.stop() }
        let events = Events(on: server.issuer)
        defer { events.stop() }
        let (_, result) = await signIn(try server.app())
        _ = try result.get()
        let delivered = await ScenarioHost.wait { events.seen.contains { $0.hasPrefix("didComplete") } }
        #expect(delivered, "\(events.seen)")
        // The verification URL where a load URL would be; never its query (the code).
        #expect(events.seen == ["didStartLoad /activate", "didFinishLoad /activate", "didComplete /activate"])
    }

    @Test @MainActor func aDeviceCodeSignInHoldsTheOneSessionSlotAndCancelReachesIt() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let server = try await Server.start("pending")
            defer { server.stop() }
            let app = try server.app()
            let shown = Mutex(false)
            let first = Task { @MainActor in
                try await app.acquireTokenWithDeviceCode(with: DeviceCodeParameters(scopes: [], display: .app { _ in shown.withLock { $0 = true } }))
            }
            #expect(await ScenarioHost.wait(upTo: Patience.scaled(.seconds(20))) { shown.withLock { $0 } }, "the code was shown")
            // A second device code, and any other session, fail at once: one interactive session per process.
            do throws(WebAuthError) {
                _ = try await app.acquireTokenWithDeviceCode(with: DeviceCodeParameters(scopes: [], display: .app { _ in }))
                Issue.record("a second device-code sign-in ran beside the first")
            } catch {
                #expect(error.code == .sessionAlreadyInProgress)
            }
            do throws(WebAuthError) {
                _ = try await WebAuthSession(redirectURI: URL(string: "http://127.0.0.1/callback")!)
                    .handOverToBroker(at: server.issuer) { () async throws(WebAuthError) -> Int in 1 }
                Issue.record("another session ran beside the device code")
            } catch {
                #expect(error.code == .sessionAlreadyInProgress)
            }
            // The failed second call did not take the first one's place: cancelling reaches the first.
            app.cancelCurrentInteractiveSession()
            do {
                _ = try await first.value
                Issue.record("the device code was not cancelled")
            } catch let error as WebAuthError {
                #expect(error.code == .canceled)
            }
            // The slot is free again: a new session takes it.
            let value = try await WebAuthSession(redirectURI: URL(string: "http://127.0.0.1/callback")!)
                .handOverToBroker(at: server.issuer) { () async throws(WebAuthError) -> Int in 7 }
            #expect(value == 7)
        }
    }

    @Test @MainActor func aSignInHoldingTheSlotMakesTheDeviceCodeFailAtOnceWithoutAskingForACode() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let server = try await Server.start("approve")
            defer { server.stop() }
            let app = try server.app()
            let holding = Mutex(false)
            let other = WebAuthSession(redirectURI: URL(string: "http://127.0.0.1/callback")!)
            let running = Task { @MainActor in
                try await other.handOverToBroker(at: server.issuer) { () async throws(WebAuthError) -> Int in
                    holding.withLock { $0 = true }
                    try? await Task.sleep(for: .seconds(60))
                    throw WebAuthError.canceled()
                }
            }
            #expect(await ScenarioHost.wait { holding.withLock { $0 } })
            var shown = false
            do throws(WebAuthError) {
                _ = try await app.acquireTokenWithDeviceCode(with: DeviceCodeParameters(scopes: [], display: .app { _ in shown = true }))
                Issue.record("the device code ran beside another sign-in")
            } catch {
                #expect(error.code == .sessionAlreadyInProgress)
            }
            #expect(!shown, "no code was shown")
            #expect(server.polls.isEmpty)
            other.cancel()
            _ = try? await running.value
        }
    }

    @Test @MainActor func theParametersTimeoutEndsTheDeviceCodeSignInWithTimedOutAndStopsAsking() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let server = try await Server.start("pending")  // the code lives 600 s
            defer { server.stop() }
            let started = ContinuousClock.now
            let app = try server.app()
            do throws(WebAuthError) {
                _ = try await app.acquireTokenWithDeviceCode(
                    with: DeviceCodeParameters(scopes: [], display: .app { _ in }, timeout: .seconds(3)))
                Issue.record("not timed out")
            } catch {
                #expect(error.code == .timedOut, "\(error)")
            }
            let took = ContinuousClock.now - started
            #expect(took >= .seconds(3) && took < Patience.scaled(.seconds(15)), "\(took)")
            let polls = server.polls.count
            #expect(await !ScenarioHost.wait(upTo: .seconds(2)) { server.polls.count > polls }, "no poll after the timeout")
        }
    }

    /// The library's window (any toolkit's `DeviceCodeWindows.present`) is closed before the
    /// caller resumes, whichever way the sign-in ends: approved, cancelled, or the code expired.
    @Test(arguments: ["approve", "cancel", "expire-quickly"])
    @MainActor func theCodesWindowIsClosedBeforeTheCallerResumes(_ scenario: String) async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let server = try await Server.start(scenario == "cancel" ? "pending" : scenario)
            defer { server.stop() }
            let app = try server.app()
            var opened = 0
            var closed = 0
            let present = DeviceCodeWindows.present
            DeviceCodeWindows.present = { content, _, _ in
                opened += 1
                #expect(content.userCode == "WDJB-MJHT")
                return { closed += 1 }
            }
            defer { DeviceCodeWindows.present = present }
            let task = Task { @MainActor () -> (Int, WebAuthError.Code?) in
                do throws(WebAuthError) {
                    _ = try await app.acquireTokenWithDeviceCode(with: DeviceCodeParameters(scopes: [], display: .window(parent: nil)))
                    return (closed, nil)
                } catch {
                    return (closed, error.code)  // read on the caller's first turn after the resume
                }
            }
            if scenario == "cancel" {
                #expect(await ScenarioHost.wait { opened == 1 })
                app.cancelCurrentInteractiveSession()
            }
            let (closedAtResume, code) = await task.value
            #expect(opened == 1)
            #expect(closedAtResume == 1, "the window was closed once, before the caller resumed")
            #expect(closed == 1)
            switch scenario {
            case "approve": #expect(code == nil)
            case "cancel": #expect(code == .canceled)
            default: #expect(code == .deviceCodeExpired)
            }
        }
    }
}

/// Issue 35: a provider that issues no ID token for the device grant (django-oauth-toolkit): the
/// tokens are returned and kept, the account named by the userinfo endpoint; an ID token that
/// fails its checks still fails.
extension DeviceCodeTests {
    @Test @MainActor func tokensWithoutAnIDTokenNameTheAccountFromUserinfoAndAreKept() async throws {
        let server = try await Server.start("no-id-token")
        defer { server.stop() }
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("org.example.App/cache.json")
        let (_, result) = await signIn(try server.app(storage: FileTokenCacheStorage(fileURL: file)))
        let tokens = try result.get()
        #expect(!tokens.hasIDToken)
        #expect(tokens.idToken.isEmpty)
        #expect(tokens.account.subject == "device-person")
        #expect(tokens.account.username == "dana@example.com")
        #expect(tokens.account.name == "Dana Device")
        #expect(tokens.account.issuer == server.issuer.absoluteString)
        #expect(tokens.idTokenClaims.audience == ["device-tests"])
        #expect(tokens.refreshToken != nil)
        #expect(abs(tokens.expiresOn.timeIntervalSinceNow - 3600) < 60)
        let userinfo = (try? String(contentsOf: server.directory.appendingPathComponent("userinfo.log"), encoding: .utf8)) ?? ""
        #expect(userinfo == "ok\n", "userinfo was asked once, with the issued access token")

        // A later run: a new application over the same file finds the account and its token.
        let later = try server.app(storage: FileTokenCacheStorage(fileURL: file))
        let accounts = try await later.allAccounts()
        #expect(accounts == [tokens.account])
        let silent = try await later.acquireTokenSilent(with: SilentTokenParameters(scopes: [], account: tokens.account))
        #expect(silent.accessToken == tokens.accessToken)
        #expect(!silent.hasIDToken)
        #expect(silent.account.username == "dana@example.com")

        // msal-python reads the same file: the account is listed, with no ID token.
        let found = try await TokenCacheScenario.msalPython(
            ["read", file.path, "--home-account-id", tokens.account.homeAccountID, "--client-id", "device-tests"])
        let listed = try #require(found["accounts"] as? [[String: Any]])
        #expect(listed.map { $0["username"] as? String } == ["dana@example.com"])
        #expect(found["id_tokens"] as? Int == 0)
        #expect((found["refresh_tokens"] as? [Any])?.count == 1)
    }

    @Test(arguments: [
        ("no-id-token-no-userinfo", "no userinfo endpoint"),
        ("userinfo-refuses", "answered HTTP 401"),
        ("bad-id-token", "ID token was refused"),
    ])
    @MainActor func tokensWhoseAccountCannotBeKnownOrWhoseIDTokenFailsAreRefused(_ scenario: String, _ said: String) async throws {
        let server = try await Server.start(scenario)
        defer { server.stop() }
        let storage = InMemoryTokenCacheStorage()
        let app = try server.app(storage: storage)
        let (_, result) = await signIn(app)
        guard case .failure(let error) = result else {
            Issue.record("\(scenario) was accepted")
            return
        }
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains(said), "\(error.message)")
        #expect(!error.message.contains("at-"), "no token in the message")
        #expect(app.accounts.isEmpty, "nothing kept")
    }
}
