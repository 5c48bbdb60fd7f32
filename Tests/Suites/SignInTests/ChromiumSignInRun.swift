import Foundation
import ScenarioSupport
import Testing

/// A SignIn scenario run with headless Chromium as the desktop's default browser and
/// ``ChromiumAutopilot`` signing in to the suite's Glewlwyd in it, as a person would.
struct ChromiumSignInRun {
    let report: ScenarioReport
    /// What the autopilot did, read before Chromium's folder (where it keeps them) is removed.
    struct Autopilot {
        let steps: [ChromiumAutopilot.Step]
        let log: String
    }

    let autopilot: Autopilot
    /// Whether Chromium showed the page the run waited for.
    let reachedPage: Bool
    /// The URLs the desktop launched Chromium with.
    let launches: [String]
    /// What was left running once Chromium was told to stop.
    let cleanup: ChromiumDesktop.Cleanup
}

extension GlewlwydSignInTests {
    /// Runs `scenario` with `arguments` (and `ISSUER`), then waits for Chromium to show a page whose
    /// URL satisfies `page`, and stops the autopilot and Chromium. A failed run throws with the
    /// autopilot's log.
    func runInChromium(
        _ scenario: SignInScenario, _ arguments: [String], until page: @escaping @Sendable (String) -> Bool
    ) async throws -> ChromiumSignInRun {
        let browser = try ChromiumDesktop()
        defer { browser.remove() }
        let glewlwyd = try #require(URLComponents(string: server.baseURL))
        let autopilot = try ChromiumAutopilot(
            in: browser, username: server.username, password: server.password,
            onlyOn: "\(glewlwyd.host ?? "127.0.0.1"):\(glewlwyd.port ?? 80)")
        defer { autopilot.stop() }
        let report: ScenarioReport
        do {
            report = try await browser.runScenario(scenario, arguments: arguments, environment: ["ISSUER": server.issuer.absoluteString])
        } catch {
            throw ChromiumDesktop.Failure(description: "\(error)\n\(autopilot.log)")
        }
        let reachedPage = await autopilot.waitForStep { $0.name == "page" && page($0.url) }
        autopilot.stop()
        let launches = browser.launchedURLs
        let cleanup = await browser.stop()
        return ChromiumSignInRun(
            report: report, autopilot: .init(steps: autopilot.steps, log: autopilot.log), reachedPage: reachedPage, launches: launches,
            cleanup: cleanup)
    }
}
