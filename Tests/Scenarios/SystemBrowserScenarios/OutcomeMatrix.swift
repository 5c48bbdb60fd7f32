import Foundation
import ScenarioSupport
import SystemBrowserProvider
import WebviewHost

/// Every way a system-browser sign-in can end, one after another in one process, each checked
/// for: one terminal event and nothing after it, the one-session slot free again, the listener's
/// port refusing connections, and the process's descriptors back to the baseline.
enum OutcomeMatrix {
    struct Case {
        var name: String
        var browser: [String: String] = [:]
        var echoed: [(String, String)] = [("code", "the-code"), ("state", "s-123")]
        var timeout: Duration? = nil
        /// What the app does while the session runs.
        var action: Action = .none
        /// A late callback sent (raw) once the outcome is known.
        var lateCallback = false
    }

    enum Action { case none, cancelOnMain, cancelOnOtherThread, cancelTask }

    static let stall = ["TEST_BROWSER_STALL": "1"]

    static let cases: [Case] = [
        Case(name: "success"),
        Case(name: "cancel-main", browser: stall, action: .cancelOnMain),
        Case(name: "cancel-other-thread", browser: stall, action: .cancelOnOtherThread),
        Case(name: "task-cancellation", browser: stall, action: .cancelTask),
        Case(name: "timeout", browser: stall, timeout: .seconds(2)),
        Case(name: "browser-fails-to-start", browser: ["TEST_BROWSER_EXIT_STATUS": "3"], timeout: .seconds(30)),
        Case(name: "duplicate-and-late-callbacks", browser: ["TEST_BROWSER_REPEAT": "1"], lateCallback: true),
        Case(name: "state-mismatch", echoed: [("code", "the-code"), ("state", "forged")]),
        Case(name: "oauth-error", echoed: [("error", "access_denied"), ("state", "s-123")]),
    ]

    @MainActor
    static func run() async throws -> ScenarioReport {
        WebviewProviderRegistry.register(SystemBrowserProvider())
        let login = try LoginServer()
        defer { login.close() }
        // Warm-up: what GLib sets up once (child-watch machinery, the launch context) exists before the baseline.
        _ = try await runCase(Case(name: "warm-up"), login: login, baseline: nil)
        await ScenarioHost.idle(.milliseconds(500))
        let baseline = HostileLoopback.openFileDescriptors()
        var rows: [String] = []
        for entry in cases {
            rows.append(try await runCase(entry, login: login, baseline: baseline))
        }
        var report = ScenarioReport()
        report[.rows] = rows
        report[.fdBaseline] = baseline
        return report
    }

    /// One case; its row: `name|outcome|terminal events|terminal last|quiet after end|slot free|port refused|fds back|seconds|seconds after the browser exited`
    /// (the last one `-` unless the browser exits by itself).
    @MainActor
    static func runCase(_ entry: Case, login: LoginServer, baseline: Int?) async throws -> String {
        for key in ["TEST_BROWSER_STALL", "TEST_BROWSER_EXIT_STATUS", "TEST_BROWSER_REPEAT", "TEST_BROWSER_EXIT_STAMP"] { unsetenv(key) }
        for (key, value) in browser(entry.browser) { setenv(key, value, 1) }
        let exitStamp = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-browser-exit-\(UUID().uuidString)").path
        defer { unlink(exitStamp) }
        if entry.browser["TEST_BROWSER_EXIT_STATUS"] != nil { setenv("TEST_BROWSER_EXIT_STAMP", exitStamp, 1) }
        let session = WebAuthSession(
            redirectURI: URL(string: "http://127.0.0.1/callback")!,
            parameters: .init(webviewType: .authenticationSession, timeout: entry.timeout))
        var notifications: [String] = []
        let observer = NotificationCenter.default.addObserver(forName: nil, object: session, queue: nil) { note in
            let name = note.name.rawValue.replacingOccurrences(of: "Notification", with: "")
            MainActor.assumeIsolated { notifications.append(name) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let started = ContinuousClock.now
        let prepared = try await session.prepare()
        let port = prepared.port ?? 0
        let url = login.authorizationURL(redirectURI: prepared, parameters: entry.echoed)
        let task = Task { @MainActor () -> String in
            do throws(WebAuthError) {
                let response = try await session.start(authorizationURL: url, expectedState: "s-123")
                return "success:\(response.code ?? "")"
            } catch {
                return error.code.name
            }
        }
        switch entry.action {
        case .none: break
        case .cancelOnMain:
            try? await Task.sleep(for: .seconds(1))
            session.cancel()
        case .cancelOnOtherThread:
            try? await Task.sleep(for: .seconds(1))
            Thread { session.cancel() }.start()
        case .cancelTask:
            try? await Task.sleep(for: .seconds(1))
            task.cancel()
        }
        let outcome = await task.value
        let elapsed = ContinuousClock.now - started
        let endedAt = monotonicSeconds()
        // From the browser's exit (its own clock reading, the same CLOCK_MONOTONIC) to the outcome:
        // what the session waited on once the browser was gone, whatever starting it cost.
        let afterExit = (try? String(contentsOfFile: exitStamp, encoding: .utf8)).flatMap(Double.init).map { endedAt - $0 }
        if entry.lateCallback {
            let late = "GET /callback?code=late&state=s-123 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
            _ = await Task.detached { RawHTTP.exchange(port: port, late) }.value
        }
        let refused = connectionRefused(host: "127.0.0.1", port: port)
        // Anything still to come would arrive now (a late report, a duplicate callback).
        await ScenarioHost.idle(.milliseconds(1500))
        let terminal = notifications.filter { $0 == "WebAuthDidComplete" || $0 == "WebAuthDidFail" }
        let terminalLast = notifications.last.map { $0 == "WebAuthDidComplete" || $0 == "WebAuthDidFail" } ?? false
        // The slot: a new session can prepare (and is cancelled at once).
        let probe = WebAuthSession(
            redirectURI: URL(string: "http://127.0.0.1/callback")!, parameters: .init(webviewType: .authenticationSession))
        var slotFree = true
        do { _ = try await probe.prepare() } catch { slotFree = error.code != .sessionAlreadyInProgress }
        probe.cancel()
        await ScenarioHost.idle(.milliseconds(300))
        var fdsBack = true
        if let baseline {
            // The browser process of this case ends, and its descriptors and connections are
            // released, when the machine gets to it: waited for until the deadline for an expected
            // event (a loaded machine has taken over 4 s), so a count still off then is a leak.
            let deadline = ContinuousClock.now + Patience.event
            var count = HostileLoopback.openFileDescriptors()
            while count != baseline, ContinuousClock.now < deadline {
                await ScenarioHost.idle(.milliseconds(100))
                count = HostileLoopback.openFileDescriptors()
            }
            fdsBack = count == baseline
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return [
            entry.name, outcome, String(terminal.count), String(terminalLast), String(notifications.count == notifications.firstIndex(where: { $0 == "WebAuthDidComplete" || $0 == "WebAuthDidFail" }).map { $0 + 1 }),
            String(slotFree), String(refused), String(fdsBack), String(format: "%.1f", seconds),
            afterExit.map { String(format: "%.2f", $0) } ?? "-",
        ].joined(separator: "|")
    }

    /// CLOCK_MONOTONIC now, in seconds (Foundation's `systemUptime` on Linux): Python's `time.monotonic()`.
    static func monotonicSeconds() -> Double {
        ProcessInfo.processInfo.systemUptime
    }
}
