import Foundation
import Testing
import WebviewHost
import WebviewHostTestKit

@Suite("The provider conformance suite")
struct ConformanceSuiteTests {
    static let fixture = WebviewProviderConformance.Fixture(
        redirectURI: testRedirect, parameters: .init(), environment: graphical,
        succeedingAuthorizationURL: { _, state in URL(string: "https://idp.example.test/authorize?mode=ok&state=\(state)")! },
        pendingAuthorizationURL: { _ in URL(string: "https://idp.example.test/authorize?mode=wait")! })

    /// For providers that are broken on purpose: they never end, so wait only briefly.
    static var impatient: WebviewProviderConformance.Fixture {
        var fixture = fixture
        fixture.patience = .seconds(2)
        return fixture
    }

    /// Succeeds or waits depending on the URL's `mode`, from a later main-loop turn.
    static let scripted: FakeWebviewProvider.Behavior = { presentation in
        presentation.reporter.didStartLoad(presentation.authorizationURL)
        guard presentation.authorizationURL.query?.contains("mode=ok") == true else { return }
        let callback = FakeWebviewProvider.callback(for: presentation, query: "code=conformance")
        DispatchQueue.main.async { presentation.reporter.handleRedirect(callback) }
    }

    @Test("The fake provider keeps the contract")
    @MainActor
    func fakeProviderConforms() async {
        let failures = await WebviewProviderConformance.run(
            provider: FakeWebviewProvider(behavior: Self.scripted), fixture: Self.fixture)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("A provider that never reaches the redirect fails the success check (the suite can fail)")
    @MainActor
    func brokenProviderIsCaught() async {
        let failures = await WebviewProviderConformance.run(
            provider: FakeWebviewProvider(behavior: FakeWebviewProvider.waitForever), fixture: Self.impatient,
            only: ["success"])
        #expect(failures.contains { $0.check == "success" && $0.detail.contains("no outcome") })
    }

    @Test("A provider whose redirect lands on another path fails the success check")
    @MainActor
    func wrongRedirectIsCaught() async {
        let wrong = FakeWebviewProvider(behavior: { presentation in
            presentation.reporter.handleRedirect(URL(string: "http://127.0.0.1:8080/other?code=x")!)
        })
        let failures = await WebviewProviderConformance.run(provider: wrong, fixture: Self.impatient, only: ["success"])
        #expect(!failures.isEmpty)
    }

    /// A fixture whose hand-over page makes ``handingOver`` ask for the browser.
    static var handOverFixture: WebviewProviderConformance.Fixture {
        var fixture = fixture
        fixture.handOverAuthorizationURL = { _ in URL(string: "https://idp.example.test/authorize?mode=handover")! }
        return fixture
    }

    /// ``scripted``, and on a `mode=handover` page asks for the browser (from a later main-loop
    /// turn, as a page's script would) when the reporter says it can; `ask` decides whether it asks.
    static func handingOver(ask: Bool = true, reportLater: Bool = false) -> FakeWebviewProvider.Behavior {
        { presentation in
            guard presentation.authorizationURL.query?.contains("mode=handover") == true else {
                try scripted(presentation)
                return
            }
            presentation.reporter.didStartLoad(presentation.authorizationURL)
            guard ask, presentation.reporter.canHandOverToSystemBrowser else { return }
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    _ = presentation.reporter.handOverToSystemBrowser(
                        SystemBrowserHandOver(reason: .webAuthn, detail: "the page asked for a passkey", pageURL: presentation.authorizationURL))
                }
            }
        }
    }

    @Test("A provider that hands over keeps the contract, and the suite runs the hand-over checks for it")
    @MainActor
    func handOverConforms() async {
        let failures = await WebviewProviderConformance.run(
            provider: FakeWebviewProvider(kind: .embeddedView, behavior: Self.handingOver()), fixture: Self.handOverFixture)
        #expect(failures.isEmpty, "\(failures)")
        // Without the fixture's hand-over page the checks do not run (the provider never asks, which would fail them).
        let skipped = await WebviewProviderConformance.run(
            provider: FakeWebviewProvider(kind: .embeddedView, behavior: Self.handingOver(ask: false)), fixture: Self.fixture,
            only: Set(WebviewProviderConformance.handOverChecks))
        #expect(skipped.isEmpty, "\(skipped)")
    }

    @Test("A provider that never asks for the browser on the hand-over page fails the hand-over checks")
    @MainActor
    func missingHandOverIsCaught() async {
        var fixture = Self.handOverFixture
        fixture.patience = .seconds(2)
        let failures = await WebviewProviderConformance.run(
            provider: FakeWebviewProvider(kind: .embeddedView, behavior: Self.handingOver(ask: false)), fixture: fixture,
            only: Set(WebviewProviderConformance.handOverChecks))
        #expect(failures.contains { $0.check == "handOver" && $0.detail.contains("did not hand the sign-in over") }, "\(failures)")
        #expect(failures.contains { $0.check == "cancelAfterHandOver" })
    }
}

