import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// The system-browser provider with a real browser: headless Chromium (Debian's `chromium`) is
/// the desktop's default browser (``ChromiumDesktop``), GIO starts it, and it runs the login
/// page's own script, which goes on to the loopback redirect after a timer.
@Suite("System browser provider with real Chromium", .serialized, .desktop)
struct RealChromiumTests {
    /// Runs a SystemBrowserScenarios scenario with Chromium as the browser, on a private session
    /// bus; stops Chromium afterwards, whatever happened, and returns what the stop found.
    func run(_ name: SystemBrowserScenario, display: DisplayServer = .x11) async throws -> (ScenarioReport, ChromiumDesktop.Cleanup, launches: [String], intoRunning: Int) {
        let browser = try ChromiumDesktop()
        defer { browser.remove() }
        let report = try await browser.runScenario(name, display: display)
        let launches = browser.launchedURLs
        let intoRunning = browser.launchesIntoRunningBrowser
        let cleanup = await browser.stop()
        return (report, cleanup, launches, intoRunning)
    }

    @Test(
        "A login page that goes on by its own script, in real Chromium: the callback arrives, then every Chromium process ends",
        arguments: [DisplayServer.x11, .wayland])
    func scriptRedirect(display: DisplayServer) async throws {
        let (report, cleanup, launches, _) = try await run(.scriptRedirect, display: display)
        #expect(report[.gdkDisplay] == (display == .x11 ? "GdkX11Display" : "GdkWaylandDisplay"))
        #expect(report[.outcome] == "success", "\(report[.errorMessage] ?? "")")
        #expect(report[.code] == "the-code")
        #expect(report[.state] == "s-123")
        #expect(report[.notifications] == successNotifications)
        #expect(report[.listenerRefusedAfterEnd] == true)
        let port = try #require(report[.listenerPort])
        // The browser was started once, with the provider's first hop on the listener.
        #expect(launches.count == 1)
        #expect(launches.first?.hasPrefix("http://127.0.0.1:\(port)/") == true, "\(launches)")
        // The login page was loaded once (a real browser also asks for /favicon.ico); only a browser
        // that ran its script could go on from there to the listener.
        let loginRequests = report[.loginRequests] ?? []
        #expect(loginRequests.first == "/authorize" && loginRequests.dropFirst().allSatisfy { $0 == "/favicon.ico" }, "\(loginRequests)")
        // Chromium was running (the wrapper, the browser, its zygotes, GPU and network processes, a
        // renderer at least, crashpad), and all of it ended on SIGTERM.
        #expect(cleanup.runningAtStop >= 8, "\(cleanup)")
        #expect(cleanup.isClean, "\(cleanup)")
    }

    @Test("Two sign-ins in a row: the second launch opens a tab in the running Chromium, both callbacks arrive")
    func twoSignIns() async throws {
        let (report, cleanup, launches, intoRunning) = try await run(.scriptRedirectTwice)
        #expect(report[.outcome.prefixed(by: "first.")] == "success", "\(report[.errorMessage.prefixed(by: "first.")] ?? "")")
        #expect(report[.code.prefixed(by: "first.")] == "first-code")
        #expect(report[.outcome] == "success", "\(report[.errorMessage] ?? "")")
        #expect(report[.code] == "second-code")
        #expect(report[.listenerPort.prefixed(by: "first.")] != report[.listenerPort])
        #expect(launches.count == 2)
        #expect(intoRunning == 1)
        #expect(cleanup.isClean, "\(cleanup)")
    }

    @Test("A Chromium whose session wrapper was killed is still found and ended: stop reports what it had to kill")
    func orphanedChromiumIsFound() async throws {
        let browser = try ChromiumDesktop()
        defer { browser.remove() }
        // The desktop's browser, started as an app's GIO launch starts it (on a bus of its own:
        // without one, GIO would autolaunch a bus that outlives the test).
        let environment = ProcessInfo.processInfo.environment.merging(browser.environment) { $1 }
        let open = try CleanSpawn(["dbus-run-session", "--", "gio", "open", "http://127.0.0.1:1/orphan"], environment: environment)
        _ = await open.collect()
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, browser.processes().count < 8 {
            try await Task.sleep(for: .milliseconds(100))
        }
        let running = browser.processes()
        #expect(running.count >= 8, "\(running)\n\(browser.chromiumLog())")
        // The wrapper dies without a word: its Chromium is orphaned (reparented away from it).
        let wrappers = try FileManager.default.contentsOfDirectory(atPath: browser.folder.path)
            .filter { $0.hasPrefix("session-") }.compactMap { pid_t($0.dropFirst("session-".count)) }
        #expect(wrappers.count == 1)
        for pid in wrappers { kill(pid, SIGKILL) }
        let orphans = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < orphans, browser.processes().contains(where: { wrappers.contains(pid_t($0.prefix { $0 != " " }) ?? 0) }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        let left = browser.processes()
        #expect(left.contains { $0.contains("--type=zygote") }, "\(left)")
        let cleanup = await browser.stop(grace: .seconds(3))
        #expect(!cleanup.isClean, "nothing was there to end it gently: \(cleanup)")
        #expect(cleanup.killed.contains { $0.contains("--type=renderer") }, "\(cleanup)")
        #expect(cleanup.remaining.isEmpty, "\(cleanup)")
        #expect(browser.processes().isEmpty)
    }
}
