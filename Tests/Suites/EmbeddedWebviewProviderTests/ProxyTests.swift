import Foundation
import ScenarioSupport
import Testing

/// The app's proxy in the library's window (issue 33), on both toolkits: the session's pages go
/// through a real recording proxy (tinyproxy); the shared web context goes direct again for the
/// next session without one.
extension EmbeddedWebviewProviderTests {
    @Test("The app's proxy (networkProxy): the library's window loads through it; the next session without one goes direct",
          arguments: Platform.x11)
    func appProxyInTheLibrarysWindow(_ platform: Platform) async throws {
        let proxy = try await RecordingProxy()
        defer { proxy.stop() }
        let report = try await Self.scenario(.proxy, proxy.url, on: platform)
        #expect(report[.outcome.prefixed(by: "proxied.")] == "success")
        #expect(report[.code.prefixed(by: "proxied.")] == "proxied")
        #expect(report[.outcome.prefixed(by: "direct.")] == "success")
        #expect(report[.code.prefixed(by: "direct.")] == "direct")
        let carried = proxy.paths(at: "127.0.0.1:\(report[.idpPort] ?? 0)")
        #expect(carried == ["GET /authorize-proxied"], "through the proxy: \(carried); all it carried: \(proxy.requests)")
    }
}

extension EmbeddedWebviewProviderTests {
    @Test("A proxy that asks for a password (the desktop's, http_proxy): the app is asked once; the library's window and the app's view both load through it",
          arguments: Platform.x11)
    func proxyPasswordAskedOnceForWindowAndView(_ platform: Platform) async throws {
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
        defer { proxy.stop() }
        let home = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        let report = try await ScenarioRunner.run(
            EmbeddedScenario.proxyPassword, in: platform.toolkit.program, arguments: ["proxy-secret"],
            environment: [
                "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
                "http_proxy": proxy.url, "no_proxy": "", "XDG_CURRENT_DESKTOP": "",
            ],
            display: platform.display)
        #expect(report[.outcome.prefixed(by: "window.")] == "success")
        #expect(report[.code.prefixed(by: "window.")] == "window")
        #expect(report[.outcome.prefixed(by: "view.")] == "success")
        #expect(report[.code.prefixed(by: "view.")] == "view")
        #expect(report[.proxyQuestions] == ["127.0.0.1:\(proxy.port) 1"], "asked once")
        let carried = proxy.paths(at: "127.0.0.1:\(report[.idpPort] ?? 0)")
        #expect(carried.contains("GET /authorize-window") && carried.contains("GET /authorize-view"), "\(carried)")
    }
}
