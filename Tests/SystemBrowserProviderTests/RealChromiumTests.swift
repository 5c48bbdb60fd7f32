import Foundation
import ScenarioSupport
import Testing

/// The system-browser provider with a real browser: headless Chromium (Debian's `chromium`) is
/// the desktop's default browser (``ChromiumDesktop``), GIO starts it, and it runs the login
/// page's own script, which goes on to the loopback redirect after a timer.
@Suite("System browser provider with real Chromium", .serialized)
struct RealChromiumTests {
    /// Runs a SystemBrowserScenarios scenario with Chromium as the browser, on a private session
    /// bus; stops Chromium afterwards, whatever happened, and returns what the stop found.
    func run(_ name: String) async throws -> (ScenarioReport, ChromiumDesktop.Cleanup, launches: [String], intoRunning: Int) {
        let browser = try ChromiumDesktop()
        defer { browser.remove() }
        let report: ScenarioReport
        do {
            report = try await ScenarioRunner.run(
                "SystemBrowserScenarios", name, environment: browser.environment, timeout: .seconds(150),
                launcher: ["dbus-run-session", "--"])
        } catch {
            _ = await browser.stop()
            throw ChromiumDesktop.Failure(description: "\(error)\nChromium's output:\n\(browser.chromiumLog())")
        }
        let launches = browser.launchedURLs
        let intoRunning = browser.launchesIntoRunningBrowser
        let cleanup = await browser.stop()
        return (report, cleanup, launches, intoRunning)
    }

    @Test("A login page that goes on by its own script, in real Chromium: the callback arrives, then every Chromium process ends")
    func scriptRedirect() async throws {
        let (report, cleanup, launches, _) = try await run("script-redirect")
        #expect(report.string("outcome") == "success", "\(report.string("errorMessage") ?? "")")
        #expect(report.string("code") == "the-code")
        #expect(report.string("state") == "s-123")
        #expect(report.strings("notifications") == successNotifications)
        #expect(report.bool("listenerRefusedAfterEnd") == true)
        let port = try #require(report.int("listenerPort"))
        // The browser was started once, with the provider's first hop on the listener.
        #expect(launches.count == 1)
        #expect(launches.first?.hasPrefix("http://127.0.0.1:\(port)/") == true, "\(launches)")
        // The login page was loaded once (a real browser also asks for /favicon.ico); only a browser
        // that ran its script could go on from there to the listener.
        let loginRequests = report.strings("loginRequests") ?? []
        #expect(loginRequests.first == "/authorize" && loginRequests.dropFirst().allSatisfy { $0 == "/favicon.ico" }, "\(loginRequests)")
        // Chromium was running (the wrapper, the browser, its zygotes, GPU and network processes, a
        // renderer at least, crashpad), and all of it ended on SIGTERM.
        #expect(cleanup.runningAtStop >= 8, "\(cleanup)")
        #expect(cleanup.isClean, "\(cleanup)")
    }

    @Test("Two sign-ins in a row: the second launch opens a tab in the running Chromium, both callbacks arrive")
    func twoSignIns() async throws {
        let (report, cleanup, launches, intoRunning) = try await run("script-redirect-twice")
        #expect(report.string("first.outcome") == "success", "\(report.string("first.errorMessage") ?? "")")
        #expect(report.string("first.code") == "first-code")
        #expect(report.string("outcome") == "success", "\(report.string("errorMessage") ?? "")")
        #expect(report.string("code") == "second-code")
        #expect(report.int("first.listenerPort") != report.int("listenerPort"))
        #expect(launches.count == 2)
        #expect(intoRunning == 1)
        #expect(cleanup.isClean, "\(cleanup)")
    }
}
