import Foundation
import Synchronization
import Testing
import WebviewHost
import WebviewHostTestKit

@Suite("Selection policy: the DESIGN.md table, the environment override, help")
struct SelectionPolicyTests {
    let browser = FakeWebviewProvider(id: "system-browser", priority: 100, kind: .systemBrowser, requiresDisplay: true)
    let embedded = FakeWebviewProvider(id: "embedded", priority: 50, kind: .embeddedView, requiresDisplay: true, supportsCustomWebview: true)
    let deviceCode = FakeWebviewProvider(id: "device-code", priority: 10, kind: .other, requiresDisplay: false)
    let view = WebviewHandle(address: UnsafeMutableRawPointer(bitPattern: 0x2000)!)

    func choose(
        _ parameters: WebviewParameters, _ providers: [any WebviewProvider], _ environment: WebviewEnvironment,
        policy: DefaultWebviewSelectionPolicy = .init()
    ) throws(WebAuthError) -> WebviewProviderID {
        try policy.selectProvider(for: parameters, among: providers, in: environment).id
    }

    func unavailable(_ provider: FakeWebviewProvider, _ reason: String) -> FakeWebviewProvider {
        var copy = provider
        copy.fixedAvailability = .unavailable(reason: reason)
        return copy
    }

    @Test("customWebview supplied: embedded, on that view")
    func customWebview() throws {
        #expect(try choose(.init(customWebview: view), [browser, embedded, deviceCode], graphical) == "embedded")
        #expect(try choose(.init(webviewType: .embedded, customWebview: view), [browser, embedded], graphical) == "embedded")
    }

    @Test("customWebview with .authenticationSession is invalidParameters with a clear message")
    func customWebviewWithBrowserType() {
        do {
            _ = try choose(.init(webviewType: .authenticationSession, customWebview: view), [browser, embedded], graphical)
            Issue.record("expected invalidParameters")
        } catch {
            #expect(error.code == .invalidParameters)
            #expect(error.message.contains("customWebview"))
            #expect(error.message.contains("authenticationSession"))
        }
    }

    @Test("customWebview with a provider that cannot use one is invalidParameters")
    func customWebviewWithPlugin() {
        #expect(throws: WebAuthError.self) {
            try choose(.init(webviewType: .provider("device-code"), customWebview: view), [browser, embedded, deviceCode], graphical)
        }
    }

    @Test("Graphical session with a browser: system browser (RFC 8252)")
    func graphicalWithBrowser() throws {
        #expect(try choose(.init(), [embedded, browser, deviceCode], graphical) == "system-browser")
    }

    @Test("Graphical session without a browser: embedded")
    func graphicalWithoutBrowser() throws {
        let noBrowser = unavailable(browser, "no application handles x-scheme-handler/https")
        #expect(try choose(.init(), [noBrowser, embedded, deviceCode], graphical) == "embedded")
    }

    @Test("No display: the highest-priority available provider that needs no display")
    func headlessPicksDisplaylessPlugin() throws {
        let second = FakeWebviewProvider(id: "broker", priority: 20, kind: .other, requiresDisplay: false)
        #expect(try choose(.init(), [browser, embedded, deviceCode, second], headless) == "broker")
        let brokerDown = unavailable(second, "broker not running")
        #expect(try choose(.init(), [browser, embedded, deviceCode, brokerDown], headless) == "device-code")
    }

    @Test("No display and no display-less provider: providerUnavailable that says why")
    func headlessNothing() {
        do {
            _ = try choose(.init(), [browser, embedded], headless)
            Issue.record("expected providerUnavailable")
        } catch {
            #expect(error.code == .providerUnavailable)
            #expect(error.message.contains("no display"))
        }
    }

    @Test(".authenticationSession fails when the browser cannot run, and names the reason")
    func authenticationSessionUnavailable() {
        let noBrowser = unavailable(browser, "no application handles x-scheme-handler/https")
        do {
            _ = try choose(.init(webviewType: .authenticationSession), [noBrowser, embedded], graphical)
            Issue.record("expected providerUnavailable")
        } catch {
            #expect(error.code == .providerUnavailable)
            #expect(error.message.contains("x-scheme-handler/https"))
        }
    }

    @Test("Explicit types map onto kinds; .provider(id) picks by id")
    func explicitTypes() throws {
        #expect(try choose(.init(webviewType: .embedded), [browser, embedded], graphical) == "embedded")
        #expect(try choose(.init(webviewType: .authenticationSession), [browser, embedded], graphical) == "system-browser")
        #expect(try choose(.init(webviewType: .provider("device-code")), [browser, embedded, deviceCode], headless) == "device-code")
        #expect(throws: WebAuthError.self) { try choose(.init(webviewType: .provider("nope")), [browser], graphical) }
    }

    @Test("WEBVIEW_HOST_PROVIDER forces a provider for .default sessions")
    func environmentOverride() throws {
        let forced = WebviewEnvironment(variables: ["DISPLAY": ":1", "WEBVIEW_HOST_PROVIDER": "embedded"])
        #expect(try choose(.init(), [browser, embedded], forced) == "embedded")
        // An explicit type is the app's decision and wins.
        #expect(try choose(.init(webviewType: .authenticationSession), [browser, embedded], forced) == "system-browser")
    }

    @Test("WEBVIEW_HOST_PROVIDER naming an unknown or unavailable provider: providerUnavailable listing what exists")
    func environmentOverrideUnknown() {
        let unknown = WebviewEnvironment(variables: ["DISPLAY": ":1", "WEBVIEW_HOST_PROVIDER": "kiosk"])
        do {
            _ = try choose(.init(), [browser, embedded], unknown)
            Issue.record("expected providerUnavailable")
        } catch {
            #expect(error.code == .providerUnavailable)
            #expect(error.message.contains("WEBVIEW_HOST_PROVIDER"))
            #expect(error.message.contains("system-browser, embedded"))
        }
        let downForced = WebviewEnvironment(variables: ["DISPLAY": ":1", "WEBVIEW_HOST_PROVIDER": "system-browser"])
        #expect(throws: WebAuthError.self) {
            try choose(.init(), [unavailable(browser, "no handler"), embedded], downForced)
        }
    }

    @Test("WEBVIEW_HOST_PROVIDER=help prints every provider with availability and reason, then chooses as usual")
    func help() throws {
        let printed = Mutex<[String]>([])
        let policy = DefaultWebviewSelectionPolicy(printHelp: { text in printed.withLock { $0.append(text) } })
        let environment = WebviewEnvironment(variables: ["DISPLAY": ":1", "WEBVIEW_HOST_PROVIDER": "help"])
        let noBrowser = unavailable(browser, "no application handles x-scheme-handler/https")
        #expect(try choose(.init(), [noBrowser, embedded, deviceCode], environment, policy: policy) == "embedded")
        let text = try #require(printed.withLock { $0.first })
        #expect(text == """
            Sandbox: none
            Sign-in providers (WEBVIEW_HOST_PROVIDER=<id> forces one):
              system-browser - Fake provider [system browser, priority 100]: unavailable: no application handles x-scheme-handler/https
              embedded - Fake provider [embedded view, priority 50]: available
              device-code - Fake provider [other, priority 10, no display needed]: available

            """)
    }

    @Test("A Flatpak's /.flatpak-info says what the sandbox shares, and help says it")
    func flatpakInfo() {
        let info = """
            [Application]
            name=org.example.App
            runtime=runtime/org.gnome.Platform/x86_64/47

            [Instance]
            instance-id=1234

            [Context]
            shared=ipc;network;
            sockets=wayland;fallback-x11;

            [Session Bus Policy]
            org.freedesktop.Notifications=talk
            """
        let sandbox = WebviewSandbox(flatpakInfo: info)
        #expect(sandbox.kind == .flatpak)
        #expect(sandbox.applicationID == "org.example.App")
        #expect(sandbox.sharesNetwork == true)
        #expect(sandbox.sockets == ["wayland", "fallback-x11"])
        #expect(sandbox.sessionBusPolicy == ["org.freedesktop.Notifications": "talk"])
        let offline = WebviewSandbox(flatpakInfo: info.replacingOccurrences(of: "shared=ipc;network;", with: "shared=ipc;"))
        #expect(offline.sharesNetwork == false)
        #expect(offline.summary == "Flatpak (app id org.example.App; no network (--share=network is missing); sockets fallback-x11, wayland)")
        let environment = WebviewEnvironment(variables: ["WAYLAND_DISPLAY": "wayland-0"], sandbox: offline)
        #expect(environment.isSandboxed)
        #expect(DefaultWebviewSelectionPolicy.helpText(providers: [], environment: environment).hasPrefix("Sandbox: Flatpak (app id org.example.App; no network"))
    }

    @Test("The environment reads DISPLAY / WAYLAND_DISPLAY and sandboxes")
    func environment() {
        #expect(WebviewEnvironment(variables: ["WAYLAND_DISPLAY": "wayland-0"]).hasDisplay)
        #expect(!WebviewEnvironment(variables: ["DISPLAY": ""]).hasDisplay)
        #expect(WebviewEnvironment(variables: ["FLATPAK_ID": "org.example.App"]).isSandboxed)
        #expect(WebviewEnvironment(variables: ["WEBVIEW_HOST_PROVIDER": " embedded "]).providerOverride == "embedded")
    }

    @Test("The registry orders by priority, replaces by id, unregisters; isolated registries do not leak")
    func registry() async {
        await WebviewProviderRegistry.withIsolatedRegistry {
            WebviewProviderRegistry.register(deviceCode)
            WebviewProviderRegistry.register(browser)
            WebviewProviderRegistry.register(embedded)
            #expect(WebviewProviderRegistry.providers.map(\.id) == ["system-browser", "embedded", "device-code"])
            WebviewProviderRegistry.register(FakeWebviewProvider(id: "embedded", priority: 500, kind: .embeddedView))
            #expect(WebviewProviderRegistry.providers.map(\.id) == ["embedded", "system-browser", "device-code"])
            #expect(WebviewProviderRegistry.unregister("device-code"))
            #expect(!WebviewProviderRegistry.unregister("device-code"))
            await WebviewProviderRegistry.withIsolatedRegistry {
                #expect(WebviewProviderRegistry.providers.isEmpty)
            }
        }
    }

    @Test("A replaced policy is used by sessions")
    @MainActor
    func replacedPolicy() async throws {
        struct AlwaysDeviceCode: WebviewSelectionPolicy {
            func selectProvider(for parameters: WebviewParameters, among providers: [any WebviewProvider], in environment: WebviewEnvironment) throws(WebAuthError) -> any WebviewProvider {
                guard let provider = providers.first(where: { $0.id == "device-code" }) else { throw WebAuthError(.providerUnavailable, "none") }
                return provider
            }
        }
        try await WebviewProviderRegistry.withIsolatedRegistry {
            WebviewProviderRegistry.register(browser)
            WebviewProviderRegistry.register(deviceCode)
            WebviewProviderRegistry.selectionPolicy = AlwaysDeviceCode()
            let session = WebAuthSession(redirectURI: testRedirect, environment: graphical)
            _ = try await session.prepare()
            #expect(session.provider?.id == "device-code")
            session.cancel()
        }
    }

    /// A policy that picks one provider by id and counts how often it was asked.
    final class Picks: WebviewSelectionPolicy {
        let id: WebviewProviderID
        let asked = Mutex(0)
        init(id: WebviewProviderID) { self.id = id }
        func selectProvider(for parameters: WebviewParameters, among providers: [any WebviewProvider], in environment: WebviewEnvironment) throws(WebAuthError) -> any WebviewProvider {
            asked.withLock { $0 += 1 }
            guard let provider = providers.first(where: { $0.id == id }) else { throw WebAuthError(.providerUnavailable, "no \(id)") }
            return provider
        }
    }

    @Test("A call's own policy (WebviewParameters.selectionPolicy) chooses that call's provider while another call with its own runs; a call without one gets the process's; the process's is never replaced")
    @MainActor
    func perCallPolicies() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry {
            // Headless, the default policy picks "c", the highest-priority provider that needs no display.
            registerFake("a", priority: 1, preparesUntilDismissed: true)
            registerFake("b", priority: 2)
            registerFake("c", priority: 3)
            let pickA = Picks(id: "a"), pickB = Picks(id: "b")
            var first = WebviewParameters(), second = WebviewParameters()
            first.selectionPolicy = pickA
            second.selectionPolicy = pickB

            // The first call holds its provider (stuck preparing) while the others choose.
            let running = WebAuthSession(redirectURI: testRedirect, parameters: first, environment: headless)
            let preparing = Task { @MainActor () -> WebAuthError? in
                do throws(WebAuthError) {
                    _ = try await running.prepare()
                    return nil
                } catch {
                    return error
                }
            }
            #expect(await eventually { running.provider != nil }, "the first call chose its provider")
            #expect(running.provider?.id == "a")
            #expect(WebAuthSession.prewarm(parameters: second, environment: headless) == "b", "the second call's own policy")
            #expect(WebAuthSession.prewarm(parameters: WebviewParameters(), environment: headless) == "c", "no policy of its own: the process's")
            #expect(WebviewProviderRegistry.selectionPolicy is DefaultWebviewSelectionPolicy, "the process's policy was never swapped")
            running.cancel()
            #expect(await preparing.value?.code == .canceled)

            for (parameters, expected) in [(second, "b"), (WebviewParameters(), "c")] {
                let session = WebAuthSession(redirectURI: testRedirect, parameters: parameters, environment: headless)
                _ = try await session.prepare()
                #expect(session.provider?.id == WebviewProviderID(expected))
                session.cancel()
            }
            #expect(pickA.asked.withLock { $0 } == 1 && pickB.asked.withLock { $0 } == 2, "each asked for its own calls only")

            // A call's policy comes before a process-wide one the app set.
            WebviewProviderRegistry.selectionPolicy = Picks(id: "c")
            let session = WebAuthSession(redirectURI: testRedirect, parameters: second, environment: headless)
            _ = try await session.prepare()
            #expect(session.provider?.id == "b")
            session.cancel()
        }
    }
}
