import Foundation
import ScenarioSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The GTK 4 demo app (Examples/SignInDemoGTK4, built beside this test bundle) end to end: a
/// GtkApplication on the test's X display signs in to the suite's Glewlwyd through the desktop's
/// default browser, which is the scripted `browser_signin.py` of a temporary XDG desktop.
extension GlewlwydSignInTests {
    @Test("SignInDemoGTK4 --start=browser: the desktop's browser signs in and the app shows \"Signed in as Alice Example.\"")
    func gtk4DemoSignsInThroughTheBrowser() async throws {
        let demo = ScenarioRunner.productsDirectory.appendingPathComponent("SignInDemoGTK4").path
        try #require(
            FileManager.default.isExecutableFile(atPath: demo),
            "\(demo) is missing: build it with `swift build --build-tests` (every executable target is built)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gtk4-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The browser notes the startup-notification id it was started with: only a launch
        // context from the app's display (GTK 4's, installed by registerBuiltInProviders) gives one.
        let startupID = folder.appendingPathComponent("startup-id")
        let browser = folder.appendingPathComponent("browser").path
        try ExecutableFile.write(
            "#!/bin/sh\nprintf '%s' \"$DESKTOP_STARTUP_ID\" > '\(startupID.path)'\n"
                + "exec python3 '\(GlewlwydServer.browserScript.path)' \"$1\"\n",
            to: browser)
        let desktop = try TestDesktop(browserCommand: "\(browser) %u")
        defer { desktop.remove() }
        let output = folder.appendingPathComponent("stdout"), errors = folder.appendingPathComponent("stderr")

        var environment = ProcessInfo.processInfo.environment.merging(desktop.environment) { $1 }
        environment["WEBVIEW_HOST_DEMO_AUTHORITY"] = server.issuer.absoluteString
        environment["WEBVIEW_HOST_DEMO_CLIENT_ID"] = server.clientID
        environment["WEBVIEW_HOST_DEMO_TOKEN_STORE"] = "memory"
        environment["GLEWLWYD_USERNAME"] = server.username
        environment["GLEWLWYD_PASSWORD"] = server.password
        environment["GTK_A11Y"] = "none"
        // A session bus of its own (the GtkApplication registers its name there; without one, GIO
        // would autolaunch a bus that outlives the test), in a process group ended once below.
        // Files, not pipes: the browser GIO starts inherits the app's standard output.
        let child = try CleanSpawn(
            ["dbus-run-session", "--", demo, "--start=browser"], environment: environment,
            outputFiles: (output.path, errors.path), processGroup: true)
        var statuses: [String] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, !child.hasEnded() {
            statuses = Self.statusLines(in: output)
            if statuses.contains(where: { $0.hasPrefix("Signed in") || $0.hasPrefix("Sign-in failed") }) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let endedByItself = child.hasEnded()
        kill(-child.pid, SIGTERM)
        var exitStatus = child.exitStatusIfEnded()
        for _ in 0..<50 where exitStatus == nil {
            try await Task.sleep(for: .milliseconds(100))
            exitStatus = child.exitStatusIfEnded()
        }
        if exitStatus == nil {
            kill(-child.pid, SIGKILL)
            _ = child.waitForExit()
        }
        statuses = Self.statusLines(in: output)
        let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""

        #expect(!endedByItself, "the app ended by itself (status \(exitStatus ?? -1)); stderr:\n\(log.suffix(3000))")
        #expect(statuses.first == "Starting sign-in…", "statuses: \(statuses)")
        #expect(statuses.contains("Signed in as \(server.userName)."), "statuses: \(statuses)\nstderr:\n\(log.suffix(3000))")
        #expect(!statuses.contains { $0.hasPrefix("Sign-in failed") }, "statuses: \(statuses)")
        let id = (try? String(contentsOf: startupID, encoding: .utf8)) ?? ""
        #expect(!id.isEmpty, "the browser had no DESKTOP_STARTUP_ID: not started with the display's launch context")
    }

    /// The demo's `status: ...` lines so far.
    static func statusLines(in file: URL) -> [String] {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.hasPrefix("status: ") }.map { String($0.dropFirst("status: ".count)) }
    }
}
