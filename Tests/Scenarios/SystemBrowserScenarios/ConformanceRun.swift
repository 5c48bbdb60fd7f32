import Foundation
import ScenarioSupport
import SystemBrowserProvider
import WebviewHost
import WebviewHostTestKit

/// The provider conformance suite against the system-browser provider, with the scripted test
/// browser as the person's browser and the login server as the identity provider.
enum ConformanceRun {
    @MainActor
    static func run() async throws -> ScenarioReport {
        for (key, value) in browser() { setenv(key, value, 1) }
        let login = try LoginServer()
        let port = login.port
        let fixture = WebviewProviderConformance.Fixture(
            redirectURI: URL(string: "http://127.0.0.1/callback")!,
            parameters: .init(),
            succeedingAuthorizationURL: { redirect, state in
                var components = URLComponents(string: "http://127.0.0.1:\(port)/authorize")!
                components.queryItems = [
                    URLQueryItem(name: "redirect_uri", value: redirect.absoluteString),
                    URLQueryItem(name: "code", value: "conformance-code"),
                    URLQueryItem(name: "state", value: state),
                ]
                return components.url!
            },
            pendingAuthorizationURL: { _ in URL(string: "http://127.0.0.1:\(port)/pending")! },
            patience: .seconds(20))
        let started = ContinuousClock.now
        let failures = await WebviewProviderConformance.run(provider: SystemBrowserProvider(), fixture: fixture)
        let elapsed = ContinuousClock.now - started
        // Let the last browser finish its requests before the login server goes away.
        await ScenarioHost.idle(.milliseconds(500))
        login.close()
        var report = ScenarioReport()
        report[.checks] = WebviewProviderConformance.checks
        report[.failures] = failures.map(\.description)
        report[.failedChecks] = Array(Set(failures.map(\.check))).sorted()
        report[.loginRequests] = login.requests
        report[.elapsedSeconds] = Double(elapsed.components.seconds)
        return report
    }
}
