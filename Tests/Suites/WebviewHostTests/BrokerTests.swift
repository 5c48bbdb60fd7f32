import Foundation
import Synchronization
import Testing
import WebviewHost
import WebviewHostTestKit

@Suite("Switching to a broker app")
struct BrokerTests {
    let brokerURL = URL(string: "msauth://broker/authorize?request=abc")!

    @Test("A page's broker URI goes to the registered broker, which completes the session; the first provider is dismissed and ignored after")
    @MainActor
    func brokerTakesOver() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let handedOver = Mutex<Bool?>(nil)
            let lateReporter = Mutex<WebAuthSessionReporter?>(nil)
            let page = registerFake("page", kind: .embeddedView, behavior: { [brokerURL] presentation in
                presentation.reporter.didStartLoad(presentation.authorizationURL)
                handedOver.withLock { $0 = presentation.reporter.switchToBroker(brokerURL) }
                lateReporter.withLock { $0 = presentation.reporter }
            })
            let broker = FakeWebviewProvider(id: "broker", brokerSchemes: ["msauth"], behavior: { presentation in
                #expect(presentation.authorizationURL == URL(string: "msauth://broker/authorize?request=abc")!)
                DispatchQueue.main.async {
                    presentation.reporter.handleRedirect(URL(string: "http://127.0.0.1:8080/callback?code=from-broker&state=s-123")!)
                }
            })
            WebviewProviderRegistry.register(broker)
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("page")), environment: graphical)
            _ = try await session.prepare()
            let events = Task { await collect(session) }
            let response = try await session.start(authorizationURL: authorizationURL, expectedState: "s-123")
            #expect(response.code == "from-broker")
            #expect(handedOver.withLock { $0 } == true)
            #expect(await events.value == ["didStartLoad", "willSwitchToBrokerApp", "didComplete"])
            #expect(page.log.dismissCount == 1)
            // The broker reported the outcome: it was dismissed (once) before the caller resumed.
            #expect(broker.log.dismissCount == 1)
            #expect(broker.log.all == [.made, .prepared, .presented(brokerURL), .dismissed])
            // The replaced provider's reports change nothing.
            let late = try #require(lateReporter.withLock { $0 })
            #expect(late.isFinished)
            #expect(late.handleRedirect(URL(string: "http://127.0.0.1:8080/callback?code=late")!))
        }
    }

    @Test("Without a registered broker, switchToBroker says no and the session goes on")
    @MainActor
    func noBroker() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            let answer = Mutex<Bool?>(nil)
            registerFake("page", kind: .embeddedView, behavior: { [brokerURL] presentation in
                answer.withLock { $0 = presentation.reporter.switchToBroker(brokerURL) }
                presentation.reporter.handleRedirect(URL(string: "http://127.0.0.1:8080/callback?code=page")!)
            })
            WebviewProviderRegistry.register(FakeWebviewProvider(id: "down", brokerSchemes: ["msauth"], availability: .unavailable(reason: "not installed")))
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("page")), environment: graphical)
            let recorder = WebAuthEventRecorder(session: session)
            _ = try await session.prepare()
            let response = try await session.start(authorizationURL: authorizationURL)
            #expect(answer.withLock { $0 } == false, "an unavailable broker does not take over")
            #expect(response.code == "page")
            #expect(recorder.shortNames == ["willSwitchToBrokerApp", "didComplete"])
        }
    }

    @Test("A broker whose presentation fails ends the session with its error")
    @MainActor
    func brokerFails() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            registerFake("page", kind: .embeddedView, behavior: { [brokerURL] presentation in
                presentation.reporter.switchToBroker(brokerURL)
            })
            WebviewProviderRegistry.register(FakeWebviewProvider(id: "broker", brokerSchemes: ["msauth"], behavior: { _ in
                throw WebAuthError(.browserLaunchFailed, "The broker app is not installed.")
            }))
            let session = WebAuthSession(redirectURI: testRedirect, parameters: .init(webviewType: .provider("page")), environment: graphical)
            _ = try await session.prepare()
            do throws(WebAuthError) {
                _ = try await session.start(authorizationURL: authorizationURL)
                Issue.record("expected the broker's failure")
            } catch {
                #expect(error.code == .browserLaunchFailed)
            }
        }
    }
}
