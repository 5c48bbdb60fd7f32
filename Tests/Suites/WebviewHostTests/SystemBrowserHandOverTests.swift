import Foundation
import Synchronization
import Testing
import WebviewHost
import WebviewHostTestKit

/// The host's side of a hand-over from an embedded view to the person's browser: a new request
/// for the browser's redirect, one terminal outcome, the old request dead.
@Suite("Handing a sign-in over to the system browser")
struct SystemBrowserHandOverTests {
    static let passkey = SystemBrowserHandOver(
        reason: .webAuthn, detail: "the page asked for a passkey", pageURL: URL(string: "https://idp.example.test/passkey"))

    /// A builder that makes `https://idp.example.test/authorize?redirect_uri=...&state=s-N`, and the
    /// redirect URIs it was asked for.
    final class Builder: Sendable {
        let asked = Mutex<[URL]>([])
        var build: AuthorizationRequestBuilder {
            { [self] redirect in
                let count = asked.withLock { $0.append(redirect); return $0.count }
                var components = URLComponents(string: "https://idp.example.test/authorize")!
                components.queryItems = [.init(name: "redirect_uri", value: redirect.absoluteString), .init(name: "state", value: "s-\(count)")]
                return AuthorizationRequestURL(components.url!, state: "s-\(count)")
            }
        }
    }

    /// An embedded fake that reports a load and then asks for the hand-over (from a later main-loop
    /// turn, as a page's script message arrives), keeping its reporter for late reports.
    static func embeddedAsking(
        _ handOver: SystemBrowserHandOver = passkey, probe: Probe
    ) -> FakeWebviewProvider.Behavior {
        { presentation in
            presentation.reporter.didStartLoad(presentation.authorizationURL)
            presentation.reporter.didFinishLoad(presentation.authorizationURL)
            probe.late.withLock { $0 = presentation.reporter }
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    let answer = presentation.reporter.handOverToSystemBrowser(handOver)
                    probe.answer.withLock { $0 = answer }
                }
            }
        }
    }

    /// What the embedded fake saw: the hand-over's answer and its reporter.
    final class Probe: Sendable {
        let answer = Mutex<Bool?>(nil)
        let late = Mutex<WebAuthSessionReporter?>(nil)
    }

    /// A browser fake whose listener binds port 9123, and whose page goes on to the redirect with the request's state.
    static func registerBrowser(behavior: FakeWebviewProvider.Behavior? = nil) -> FakeWebviewProvider {
        let browser = FakeWebviewProvider(
            id: "browser", kind: .systemBrowser, requiresDisplay: true, defaultTimeout: .seconds(600),
            prepareRedirect: { url in
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
                components.port = 9123
                return components.url!
            },
            behavior: behavior ?? { presentation in
                presentation.reporter.didStartLoad(presentation.authorizationURL)
                DispatchQueue.main.async {
                    presentation.reporter.handleRedirect(FakeWebviewProvider.callback(for: presentation, query: "code=from-browser"))
                }
            })
        WebviewProviderRegistry.register(browser)
        return browser
    }

    @Test("Automatic: the browser gets a new request for its own redirect; one outcome, events in order, the view's request dead")
    @MainActor
    func automatic() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let probe = Probe()
            let view = registerFake("view", kind: .embeddedView, behavior: Self.embeddedAsking(probe: probe))
            let browser = Self.registerBrowser()
            let builder = Builder()
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("view")), environment: graphical)
            let recorder = WebAuthEventRecorder(session: session)
            let events = Task { await collect(session) }
            let response = try await session.authenticate(request: builder.build)
            #expect(response.code == "from-browser")
            #expect(response.state == "s-2", "the answer is the browser request's")
            #expect(response.callbackURL.port == 9123, "at the browser's own redirect")
            #expect(probe.answer.withLock { $0 } == true)
            #expect(builder.asked.withLock { $0 } == [testRedirect, URL(string: "http://127.0.0.1:9123/callback")!])
            #expect(await events.value == ["didStartLoad", "didFinishLoad", "willSwitchToSystemBrowser", "didStartLoad", "didComplete"])
            let handOver = try #require(recorder.records.first { $0.shortName == "willSwitchToSystemBrowser" })
            #expect(handOver.url == Self.passkey.pageURL)
            #expect(view.log.dismissCount == 1)
            #expect(browser.log.all.first == .made)
            #expect(await eventually { browser.log.dismissCount == 1 })
            // The view's own reporter is silent now, and still knows its redirect.
            let reporter = try #require(probe.late.withLock { $0 })
            #expect(reporter.isFinished)
            #expect(reporter.redirectURI?.url == testRedirect)
            #expect(!reporter.handOverToSystemBrowser(Self.passkey))
        }
    }

    /// SignIn takes the PKCE verifier and nonce of the request the session names: the session
    /// checked the callback's `state` against it, and nothing compares the `state` again.
    @Test("The session names the request its response answers: the first one, or the browser's after a hand-over")
    @MainActor
    func answeredRequest() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            registerFake("direct", kind: .embeddedView, behavior: FakeWebviewProvider.redirect(query: "code=direct"))
            let direct = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("direct")), environment: graphical)
            let first = try await direct.authenticateAnswering(request: Builder().build)
            #expect(first.response.code == "direct")
            #expect(first.request?.state == "s-1")
            #expect(first.request?.url.query?.contains("state=s-1") == true)

            let probe = Probe()
            registerFake("view", kind: .embeddedView, behavior: Self.embeddedAsking(probe: probe))
            _ = Self.registerBrowser()
            let handedOver = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("view")), environment: graphical)
            let second = try await handedOver.authenticateAnswering(request: Builder().build)
            #expect(second.response.code == "from-browser")
            #expect(second.request?.state == "s-2", "the browser's request, not the view's")
            #expect(second.request?.url.query?.contains("9123") == true, "the request made for the browser's redirect")
        }
    }

    @Test("The view's request is dead: a callback to the browser carrying the first request's state is refused")
    @MainActor
    func firstStateRefused() async {
        await WebviewProviderRegistry.withIsolatedRegistry {
            let probe = Probe()
            registerFake("view", kind: .embeddedView, behavior: Self.embeddedAsking(probe: probe))
            _ = Self.registerBrowser { presentation in
                DispatchQueue.main.async {
                    presentation.reporter.handleRedirect(URL(string: "http://127.0.0.1:9123/callback?code=replayed&state=s-1")!)
                }
            }
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("view")), environment: graphical)
            do throws(WebAuthError) {
                _ = try await session.authenticate(request: Builder().build)
                Issue.record("the replayed state was accepted")
            } catch {
                #expect(error.code == .stateMismatch)
            }
        }
    }

    @Test("Never: the session ends with systemBrowserRequired and the reason; no browser is started")
    @MainActor
    func never() async {
        await WebviewProviderRegistry.withIsolatedRegistry {
            let probe = Probe()
            registerFake("view", kind: .embeddedView, behavior: Self.embeddedAsking(probe: probe))
            let browser = Self.registerBrowser()
            let session = WebAuthSession(
                redirectURI: testRedirect, parameters: .init(webviewType: .provider("view"), systemBrowserHandOver: .never),
                environment: graphical)
            let events = Task { await collect(session) }
            do throws(WebAuthError) {
                _ = try await session.authenticate(request: Builder().build)
                Issue.record("the session succeeded")
            } catch {
                #expect(error.code == .systemBrowserRequired)
                #expect(error.handOver?.reason == .webAuthn)
                #expect(error.message.contains("passkey"))
            }
            #expect(probe.answer.withLock { $0 } == false)
            #expect(await events.value == ["didStartLoad", "didFinishLoad", "didFail"])
            #expect(browser.log.all.isEmpty)
        }
    }

    @Test("Without a builder, or without a browser, or with an https redirect only a view can take: systemBrowserRequired", arguments: [
        "no builder", "no browser", "browser unavailable", "https redirect",
    ])
    @MainActor
    func cannotMove(_ case: String) async {
        await WebviewProviderRegistry.withIsolatedRegistry {
            let probe = Probe()
            registerFake("view", kind: .embeddedView, behavior: Self.embeddedAsking(probe: probe))
            switch `case` {
            case "no browser": break
            case "browser unavailable":
                WebviewProviderRegistry.register(FakeWebviewProvider(id: "browser", kind: .systemBrowser, availability: .unavailable(reason: "no handler")))
            default: _ = Self.registerBrowser()
            }
            let redirect = `case` == "https redirect" ? URL(string: "https://login.example.test/nativeclient")! : testRedirect
            let session = WebAuthSession(redirectURI: redirect, parameters: .init(webviewType: .provider("view")), environment: graphical)
            do throws(WebAuthError) {
                if `case` == "no builder" {
                    _ = try await session.prepare()
                    _ = try await session.start(authorizationURL: authorizationURL, expectedState: "s-123")
                } else {
                    _ = try await session.authenticate(request: Builder().build)
                }
                Issue.record("the session succeeded")
            } catch {
                #expect(error.code == .systemBrowserRequired, "\(error)")
                #expect(error.handOver?.reason == .webAuthn)
            }
            #expect(probe.answer.withLock { $0 } == false)
            #expect(probe.late.withLock { $0 }?.canHandOverToSystemBrowser == false)
        }
    }

    @Test("An https redirect with systemBrowserRedirectURI: the browser uses the app's loopback redirect")
    @MainActor
    func httpsWithBrowserRedirect() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let probe = Probe()
            registerFake("view", kind: .embeddedView, behavior: Self.embeddedAsking(probe: probe))
            _ = Self.registerBrowser()
            let builder = Builder()
            let session = WebAuthSession(
                redirectURI: URL(string: "https://login.example.test/nativeclient")!,
                parameters: .init(webviewType: .provider("view"), systemBrowserRedirectURI: URL(string: "http://[::1]/cb")!),
                environment: graphical)
            let response = try await session.authenticate(request: builder.build)
            #expect(response.callbackURL.absoluteString.hasPrefix("http://[::1]:9123/cb?"))
            #expect(builder.asked.withLock { $0 }.last == URL(string: "http://[::1]:9123/cb")!)
        }
    }

    @Test("The app's continueInSystemBrowser hands over even with the policy never, once; canHandOver says so")
    @MainActor
    func appRequested() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let reporter = Mutex<WebAuthSessionReporter?>(nil)
            registerFake("view", kind: .embeddedView, behavior: { presentation in
                reporter.withLock { $0 = presentation.reporter }
                presentation.reporter.didStartLoad(presentation.authorizationURL)
            })
            _ = Self.registerBrowser()
            let session = WebAuthSession(
                redirectURI: testRedirect, parameters: .init(webviewType: .provider("view"), systemBrowserHandOver: .never),
                environment: graphical)
            #expect(!session.continueInSystemBrowser(), "nothing to hand over before the start")
            let recorder = WebAuthEventRecorder(session: session)
            let asked = Mutex(false)
            let observation = session.observe { event in
                if case .didStartLoad = event, !asked.withLock({ $0 }) {
                    asked.withLock { $0 = true }
                    // Not the person's policy to apply: the app asked. A second ask does nothing.
                    #expect(reporter.withLock { $0 }?.canHandOverToSystemBrowser == false, "policy never: no button, no WebAuthn")
                    DispatchQueue.main.async {
                        MainActor.assumeIsolated {
                            #expect(session.continueInSystemBrowser())
                            #expect(!session.continueInSystemBrowser())
                        }
                    }
                }
            }
            defer { observation.invalidate() }
            let response = try await session.authenticate(request: Builder().build)
            #expect(response.code == "from-browser")
            let handOver = recorder.records.compactMap { $0.shortName == "willSwitchToSystemBrowser" ? $0 : nil }
            #expect(handOver.count == 1)
        }
    }

    @Test("Cancel after the hand-over ends the browser's session: one didFail, the browser dismissed")
    @MainActor
    func cancelAfterHandOver() async {
        await WebviewProviderRegistry.withIsolatedRegistry {
            let probe = Probe()
            registerFake("view", kind: .embeddedView, behavior: Self.embeddedAsking(probe: probe))
            let browser = Self.registerBrowser(behavior: FakeWebviewProvider.waitForever)
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("view")), environment: graphical)
            let observation = session.observe { event in
                if case .willSwitchToSystemBrowser = event { DispatchQueue.main.async { session.cancel() } }
            }
            defer { observation.invalidate() }
            let events = Task { await collect(session) }
            await #expect(throws: WebAuthError.self) { _ = try await session.authenticate(request: Builder().build) }
            let names = await events.value
            #expect(names.last == "didFail")
            #expect(names.filter { $0 == "didFail" || $0 == "didComplete" }.count == 1)
            #expect(browser.log.dismissCount == 1)
        }
    }
}
