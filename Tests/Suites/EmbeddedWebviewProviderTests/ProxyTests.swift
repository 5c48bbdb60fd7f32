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
