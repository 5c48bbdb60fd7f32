public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A temporary desktop (``TestDesktop``) whose default browser for http and https is real
/// headless Chromium (Debian's `chromium`), as a person's desktop would have it: GIO starts it
/// from the desktop entry like any browser, and a sign-in really runs in it.
///
/// Use it like this (the scenario runs on a private session bus, as a desktop app does):
///
///     let browser = try ChromiumDesktop()
///     defer { browser.remove() }        // safety net: kills whatever still runs, removes the files
///     let report = try await browser.runScenario(SystemBrowserScenario.scriptRedirect)
///     let cleanup = await browser.stop() // ends every Chromium process, waits for the kernel to say so
///     #expect(cleanup.isClean, "\(cleanup)")
///
/// The desktop entry runs a wrapper script (in ``folder``) that starts
/// `Tests/Fixtures/Chromium/chromium-session.py` with Chromium's command line (``chromiumArguments``).
/// That session becomes a child subreaper, so every process Chromium starts stays below it
/// (crashpad double-forks into sessions of its own), and ends all of them when told to.
/// ``processes()`` finds them in `/proc` whoever their parent is (see ``ownProcesses()``). A
/// second launch while Chromium runs opens the URL in a new tab of the running browser, as a
/// desktop browser's second launch does.
///
/// To complete a sign-in form in it, start a ``ChromiumAutopilot`` on it. Chromium reaches
/// 127.0.0.1 and ::1 only: every host name resolves to nothing (`--host-resolver-rules`).
public struct ChromiumDesktop: Sendable {
    /// Chromium missing, or a run that failed with Chromium's side of the story attached.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The GIO desktop (environment for the scenario process).
    public let desktop: TestDesktop
    /// Private folder (mode 0700): the wrapper script, Chromium's profile (`profile`), its
    /// output (`chromium.log`), the session log (`sessions.log`), the autopilots' logs.
    public let folder: URL
    /// The value of `WVH_CHROMIUM_RUN` in the environment the wrapper gives its session and
    /// Chromium (readable in `/proc` for the wrappers and crashpad only: Chromium's own processes
    /// write their titles over it).
    public let marker: String

    /// Chromium's `--user-data-dir`; holds `DevToolsActivePort` once Chromium runs.
    public var profile: URL { folder.appendingPathComponent("profile") }

    /// `Tests/Fixtures/Chromium` in this checkout (the session wrapper and the autopilot).
    public static let scriptsDirectory = Checkout.fixture("Chromium")

    /// Chromium's command line before the URL, for a container run as root by a test:
    /// - `--headless=new`: no window, no display needed (the page still lays out and runs scripts);
    /// - `--password-store=basic`: a Secret Service on the test bus would make it wait on an
    ///   unlock prompt; `--no-first-run`, `--no-default-browser-check`: no first-run dialogs;
    /// - `--no-sandbox`: the sandbox refuses to run as root; `--disable-gpu`,
    ///   `--disable-dev-shm-usage` (a container's /dev/shm is small): software rendering, /tmp;
    /// - `--disable-background-networking`, `--disable-component-update`, `--disable-sync`,
    ///   `--no-pings`, `--disable-crash-reporter`, `--disable-breakpad` (Debian's build starts its
    ///   two crashpad handlers all the same; they write under `XDG_CONFIG_HOME`, the desktop's), and
    ///   `--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE ::1`: no traffic but to
    ///   the loopback addresses (the rule applies to IP literals too, hence the exclusions);
    /// - `--remote-debugging-port=0` on 127.0.0.1: the DevTools endpoint the autopilot uses (the
    ///   port Chromium chose is in `profile/DevToolsActivePort`);
    /// - `--window-size=1280,800`: the page lays out as on a laptop screen.
    public static let chromiumArguments = [
        "--headless=new", "--password-store=basic", "--no-first-run", "--no-default-browser-check",
        "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
        "--disable-extensions", "--no-pings", "--disable-crash-reporter", "--disable-breakpad",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE ::1", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
        "--window-size=1280,800",
    ]

    /// Whether `chromium` is on `PATH` (`.ci/install` installs it).
    public static var isInstalled: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":").contains {
            access("\($0)/chromium", X_OK) == 0
        }
    }

    /// Writes the desktop, the wrapper script and an empty profile folder.
    /// - Parameter extraArguments: more Chromium switches, after ``chromiumArguments``.
    /// - Throws: ``Failure`` when `chromium` is not installed; file errors.
    public init(extraArguments: [String] = []) throws {
        guard Self.isInstalled else {
            throw Failure(description: "chromium is not installed: run `sudo bash .ci/install` (Debian's chromium package)")
        }
        marker = UUID().uuidString
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-chromium-\(marker)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let profile = folder.appendingPathComponent("profile")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = [Self.scriptsDirectory.appendingPathComponent("chromium-session.py").path, folder.path, "chromium"]
            + Self.chromiumArguments + ["--user-data-dir=\(profile.path)"] + extraArguments
        let wrapper = folder.appendingPathComponent("chromium-browser")
        try ExecutableFile.write(
            """
            #!/bin/sh
            # The desktop's default browser: one headless Chromium session (Tests/Fixtures/Chromium/chromium-session.py).
            export WVH_CHROMIUM_RUN=\(quoted(marker))
            # No session bus: the scenario's private bus ends before Chromium is stopped, and
            # Chromium aborts when its bus goes away (it needs none to show pages).
            export DBUS_SESSION_BUS_ADDRESS=disabled:
            exec python3 \(command.map(quoted).joined(separator: " ")) "$@" </dev/null >>\(quoted(folder.appendingPathComponent("wrapper-output.log").path)) 2>&1

            """, to: wrapper.path, mode: 0o700)
        desktop = try TestDesktop(browserCommand: "\(wrapper.path) %u")
    }

    /// The environment for a scenario process (GIO starts the browser from it).
    public var environment: [String: String] { desktop.environment }

    /// Runs `scenario` (``ScenarioRunner/run(_:in:arguments:environment:timeout:launcher:display:)``,
    /// in `program` when its ``ScenarioName/program`` is `nil`) with this desktop's ``environment``
    /// (and `environment` over it) on a private session bus (`dbus-run-session`), as a desktop app
    /// runs. Chromium keeps running afterwards: call ``stop(grace:)``.
    /// - Throws: ``Failure`` with the runner's error, Chromium's output and the session log.
    public func runScenario<Name: ScenarioName>(
        _ scenario: Name, in program: String? = nil, arguments: [String] = [], environment: [String: String] = [:],
        timeout: Duration = .seconds(150), display: DisplayServer = .x11
    ) async throws -> ScenarioReport {
        do {
            return try await ScenarioRunner.run(
                scenario, in: program, arguments: arguments, environment: self.environment.merging(environment) { $1 },
                timeout: timeout, launcher: ["dbus-run-session", "--"], display: display)
        } catch {
            throw Failure(description: "\(error)\n--- Chromium's side:\n\(chromiumLog())")
        }
    }

    /// The URLs the desktop launched the browser with, in order (the session log's `launched`).
    public var launchedURLs: [String] {
        sessionEvents.filter { $0["event"] as? String == "launched" }.compactMap { $0["url"] as? String }
    }

    /// How many launches found Chromium running and opened a new tab in it instead.
    public var launchesIntoRunningBrowser: Int {
        sessionEvents.filter { $0["event"] as? String == "opened-in-running-browser" }.count
    }

    private var sessionEvents: [[String: Any]] {
        let text = (try? String(contentsOf: folder.appendingPathComponent("sessions.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The last `limit` characters of Chromium's own output and of the session wrapper's, for
    /// failure messages.
    public func chromiumLog(limit: Int = 3000) -> String {
        ["chromium.log", "wrapper-output.log", "sessions.log"].map { name in
            let text = (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
            return "\(name):\n\(text.suffix(limit))"
        }.joined(separator: "\n")
    }

    /// Every live process of this browser (the session wrappers, Chromium and all it started):
    /// "pid command-line" each. See ``ownProcesses()`` for how they are found.
    public func processes() -> [String] {
        ownProcesses().map { "\($0.pid) \($0.command)" }
    }

    /// The live processes of this browser, found in `/proc` three ways, so that a process is
    /// found whoever its parent is now: its environment holds `WVH_CHROMIUM_RUN=<marker>` (the
    /// wrappers, crashpad; Chromium's own processes overwrite that memory with their titles);
    /// its session is one a session wrapper started Chromium in (`browser-started` in the
    /// session log: Chromium, its zygotes and everything they fork; a session ID is not reused
    /// while one of its processes lives); or it descends from a live session wrapper.
    func ownProcesses() -> [(pid: pid_t, command: String)] {
        let sessions = Set(sessionEvents.filter { $0["event"] as? String == "browser-started" }.compactMap {
            ($0["browser"] as? Int).map { pid_t($0) }
        })
        let wanted = [0] + Array("WVH_CHROMIUM_RUN=\(marker)".utf8) + [0]
        var table: [pid_t: (parent: pid_t, session: pid_t)] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(name), pid != getpid() else { continue }
            // "pid (comm) state ppid pgrp session ...": the name may hold spaces and parentheses.
            let stat = String(decoding: Self.read("/proc/\(name)/stat"), as: UTF8.self)
            guard let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 3, fields[0] != "Z", let parent = pid_t(fields[1]), let session = pid_t(fields[3]) else { continue }
            table[pid] = (parent, session)
        }
        let wrappers = Set(table.keys.filter { Self.contains(([0] + Self.read("/proc/\($0)/environ"))[...], wanted) })
        func belongs(_ pid: pid_t) -> Bool {
            if wrappers.contains(pid) || sessions.contains(table[pid]?.session ?? -1) { return true }
            var current = table[pid]?.parent ?? 0
            var steps = 0
            while current > 1, steps < 64 {
                if wrappers.contains(current) { return true }
                current = table[current]?.parent ?? 0
                steps += 1
            }
            return false
        }
        return table.keys.sorted().filter(belongs).map { pid in
            let command = Self.read("/proc/\(pid)/cmdline").map { $0 == 0 ? UInt8(ascii: " ") : $0 }
            return (pid, String(decoding: command.prefix(160), as: UTF8.self))
        }
    }

    /// What ``stop(grace:)`` found.
    public struct Cleanup: Sendable, CustomStringConvertible {
        /// How many processes of this browser ran when the stop began.
        public let runningAtStop: Int
        /// Processes still there after the grace period, ended with SIGKILL ("pid command").
        public let killed: [String]
        /// Processes not gone even after SIGKILL and a further wait.
        public let remaining: [String]
        /// Every process ended within the grace period on its own.
        public var isClean: Bool { killed.isEmpty && remaining.isEmpty }
        public var description: String {
            "\(runningAtStop) Chromium processes at stop; killed after the grace period: \(killed); still running: \(remaining)"
        }
    }

    /// Ends the browser: SIGTERM to each session wrapper (which ends its Chromium and every
    /// process below it, and reaps them), then waits until the kernel lists none of this
    /// browser's processes, at most `grace`; what is left then gets SIGKILL. Safe to call when
    /// nothing runs, and more than once.
    public func stop(grace: Duration = .seconds(30)) async -> Cleanup {
        let running = ownProcesses()
        let sessions = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in sessions where name.hasPrefix("session-") {
            guard let pid = pid_t(name.dropFirst("session-".count)), running.contains(where: { $0.pid == pid }) else { continue }
            kill(pid, SIGTERM)
        }
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline, !ownProcesses().isEmpty {
            try? await Task.sleep(for: .milliseconds(50))
        }
        let left = ownProcesses()
        for process in left { kill(process.pid, SIGKILL) }
        let killDeadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < killDeadline, !ownProcesses().isEmpty {
            try? await Task.sleep(for: .milliseconds(50))
        }
        return Cleanup(
            runningAtStop: running.count, killed: left.map { "\($0.pid) \($0.command)" },
            remaining: ownProcesses().map { "\($0.pid) \($0.command)" })
    }

    /// Kills (SIGKILL) whatever of this browser still runs and removes the desktop and the
    /// folder. For `defer`: a test that got as far as it should calls ``stop(grace:)`` first.
    public func remove() {
        for process in ownProcesses() { kill(process.pid, SIGKILL) }
        desktop.remove()
        try? FileManager.default.removeItem(at: folder)
    }

    private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (haystack.startIndex...(haystack.endIndex - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    /// A /proc file's bytes (opened with O_CLOEXEC; empty when the process is gone).
    private static func read(_ path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return bytes }
            bytes += buffer[0..<count]
        }
    }
}
