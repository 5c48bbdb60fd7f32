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
}
