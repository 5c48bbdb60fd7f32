import Foundation
import Testing
import WebviewHost
import WebviewHostTestKit

@Suite("Warm start through the host")
@MainActor
struct HostPrewarmTests {
    @Test("WebAuthSession.prewarm asks the provider the policy would choose for those parameters, and only it")
    func prewarmReachesTheChosenProvider() async throws {
        await WebviewProviderRegistry.withIsolatedRegistry {
            let browser = registerFake("browser-like", kind: .systemBrowser, priority: 5)
            let embedded = registerFake("embedded-like", kind: .embeddedView, priority: 1)
            let id = WebAuthSession.prewarm(
                parameters: WebviewParameters(webviewType: .embedded), authorityHost: "login.example.com")
            #expect(id == "embedded-like")
            #expect(embedded.log.all == [.prewarmed("login.example.com")])
            #expect(browser.log.all.isEmpty)
            #expect(WebAuthSession.prewarm(parameters: WebviewParameters(webviewType: .provider("browser-like"))) == "browser-like")
            #expect(browser.log.all == [.prewarmed(nil)])
        }
    }

    @Test("WebAuthSession.prewarm with no provider to choose returns nil and changes nothing")
    func prewarmWithoutProvider() async throws {
        await WebviewProviderRegistry.withIsolatedRegistry {
            let unavailable = registerFake("gone", availability: .unavailable(reason: "not installed"))
            #expect(WebAuthSession.prewarm(parameters: WebviewParameters(webviewType: .provider("gone"))) == nil)
            #expect(unavailable.log.all.isEmpty)
        }
    }
}
