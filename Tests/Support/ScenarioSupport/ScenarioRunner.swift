public import Foundation
import Synchronization

/// The test side: launches a scenario program (built beside the test bundle) in its own
/// process, on the X display the tests run with or on a Wayland compositor of its own, and
/// returns its report.
public enum ScenarioRunner {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The folder holding this build's products.
    public static var productsDirectory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// A private `XDG_RUNTIME_DIR` (mode 0700) for the scenarios of this test process, never removed
    /// while it runs.
    private static let sharedRuntimeDirectory: String = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-runtime-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return folder.path
    }()

    /// A folder of its own (mode 0700) in ``sharedRuntimeDirectory``, never removed while the
    /// test process runs.
    private static func privateRuntimeDirectory() -> String {
        let folder = URL(fileURLWithPath: sharedRuntimeDirectory).appendingPathComponent("bus-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return folder.path
    }

    /// Runs `program scenario arguments...` and returns the report it printed.
    ///
    /// - Parameters:
    ///   - program: the executable, built beside the test bundle; by default the scenario's
    ///     ``ScenarioName/program`` (the embedded scenarios have one per toolkit: name it).
    ///   - environment: variables set for the program, over the inherited ones (and over the
    ///     compositor's, on Wayland).
    ///   - launcher: a command that runs the program (found on `PATH`), such as
    ///     `["dbus-run-session", "--"]`; the program path and its arguments follow it.
    ///   - display: `.x11` for the inherited `DISPLAY` (Xvfb); `.wayland` for a private headless
    ///     Weston (``WaylandCompositor``), `.privateX11` for a private Xvfb (``PrivateXServer``),
    ///     `.waylandWithInput` for a Weston that takes input through a private Xvfb; each started
    ///     before the program and stopped after it.
    /// - Throws: ``Failure`` when the test process calls it outside a ``DesktopSlots`` slot (a
    ///   test without the `.desktop` trait), or the program printed no report or reported an error; its
    ///   standard error is in the message (with its threads' stacks when its watchdog, or this
    ///   runner, stopped it). The program and its launcher are killed if still running 10 s
    ///   (scaled) after `timeout`, beyond its own watchdog; the stacks of all its threads are
    ///   read first (gdb) and are in the message.
    ///   ``WaylandCompositor/Failure`` when Weston is missing or does not come up.
    public static func run<Name: ScenarioName>(
        _ scenario: Name, in program: String? = nil, arguments: [String] = [], environment: [String: String] = [:],
        timeout: Duration = Patience.scaled(.seconds(120)), launcher: [String] = [], display: DisplayServer = .x11
    ) async throws -> ScenarioReport {
        guard let program = program ?? Name.program else {
            throw Failure(description: "\(Name.self) runs in more than one program: name the one to launch")
        }
        guard DesktopSlots.isHeld || !DesktopSlots.isTestProcess else {
            throw Failure(description: "\(scenario.rawValue) was started outside a desktop slot: give the test (or its suite) the `.desktop` trait (TestTraits)")
        }
        let scenario = scenario.rawValue
        var env = ProcessInfo.processInfo.environment
        env["SCENARIO_TIMEOUT"] = env["SCENARIO_TIMEOUT"] ?? String(timeout.components.seconds - 5)
        // No accessibility bus: GTK would start one (a dbus-daemon) that outlives the scenario
        // (GTK 3 reads NO_AT_BRIDGE, GTK 4 GTK_A11Y).
        env["NO_AT_BRIDGE"] = env["NO_AT_BRIDGE"] ?? "1"
        env["GTK_A11Y"] = env["GTK_A11Y"] ?? "none"
        // A runtime folder that lives as long as the test run: WebKitGTK 6.0 binds it into its
        // sandbox and aborts if it is gone (CleanSpawn names the accessibility bus, so that no
        // test's web process finds another test's through the display's root window).
        // A scenario on a private session bus gets a folder of its own in it: the daemons its bus
        // starts find each other there (gnome-keyring's control socket), and one that found
        // another scenario's daemon would never come up on this bus. The portal waits for the
        // keyring: a full run saw it, and a sign-in window's page, wait 25 s for that.
        env["XDG_RUNTIME_DIR"] = env["XDG_RUNTIME_DIR"] ?? (launcher.first == "dbus-run-session" ? privateRuntimeDirectory() : sharedRuntimeDirectory)
        switch display {
        case .x11:
            return try await launch(program, scenario, arguments, environment: env.merging(environment) { $1 }, timeout, launcher)
        case .wayland:
            return try await WaylandCompositor.with { compositor in
                let env = compositor.environment(from: env).merging(environment) { $1 }
                return try await launch(program, scenario, arguments, environment: env, timeout, launcher)
            }
        case .privateX11:
            return try await PrivateXServer.with { server in
                let env = server.environment(from: env).merging(environment) { $1 }
                return try await launch(program, scenario, arguments, environment: env, timeout, launcher)
            }
        case .waylandWithInput:
            return try await PrivateXServer.with { server in
                try await WaylandCompositor.with(input: server) { compositor in
                    let env = compositor.environment(from: env).merging(environment) { $1 }
                    return try await launch(program, scenario, arguments, environment: env, timeout, launcher)
                }
            }
        }
    }

    /// How long past its timeout a program still runs before it is killed: its own watchdog fired
    /// 5 s before the timeout and may take up to ``ThreadStacks/deadline`` to read its stacks.
    public static var killGrace: Duration { Patience.scaled(.seconds(10)) + ThreadStacks.deadline }

    /// The stacks of a program the runner had to kill, from the killer's task to the failure.
    private final class HungProgram: Sendable {
        private let text = Mutex<String?>(nil)
        func record(_ stacks: String) { text.withLock { $0 = stacks } }
        var stacks: String? { text.withLock { $0 } }
    }

    private static func launch(
        _ program: String, _ scenario: String, _ arguments: [String], environment env: [String: String],
        _ timeout: Duration, _ launcher: [String]
    ) async throws -> ScenarioReport {
        let programPath = productsDirectory.appendingPathComponent(program).path
        // Not Foundation's Process: see CleanSpawn (its children would never get SIGTERM or SIGALRM).
        let child = try CleanSpawn(launcher + [programPath, scenario] + arguments, environment: env)
        let pid = child.pid
        let hung = HungProgram()
        let limit = timeout + killGrace
        let killer = Task.detached {
            try await Task.sleep(for: limit)
            // Still running, its watchdog stuck too (a blocked main loop): where its threads are, then the end.
            let programs = ThreadStacks.processes(running: programPath, under: pid)
            var stacks: [String] = []
            for program in programs { stacks.append(await ThreadStacks.read(pid: program)) }
            hung.record(stacks.isEmpty ? "(no stacks: \(program) was not found under process \(pid))" : stacks.joined(separator: "\n"))
            for program in programs { kill(program, SIGKILL) }
            kill(pid, SIGKILL)
        }
        // Both pipes read to the end while the program runs (so neither fills up), off the cooperative pool.
        let collected = await child.collect()
        let exitStatus = collected.status
        killer.cancel()
        let text = String(decoding: collected.output, as: UTF8.self)
        let log = String(decoding: collected.errors, as: UTF8.self)
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix(ScenarioHost.reportPrefix) }) else {
            // A Swift trap's message comes before its backtrace, which the tail below may not reach.
            // So is a GLib error's (g_error, a fatal critical): GLib traps right after printing it.
            let fatal = log.split(separator: "\n").filter {
                $0.contains("Fatal error") || $0.contains("ERROR **") || $0.contains("CRITICAL **")
            }.prefix(3).joined(separator: "\n")
            let stacks = hung.stacks.map { "Still running \(limit) after its start: killed. Its threads' stacks:\n\($0)\n" } ?? ""
            throw Failure(description: "\(program) \(scenario) printed no report (exit \(exitStatus)).\n\(stacks)\(fatal.isEmpty ? "" : fatal + "\n")stdout:\n\(text)\nstderr:\n\(log.suffix(4000))")
        }
        let report = try JSONDecoder().decode(ScenarioReport.self, from: Data(line.dropFirst(ScenarioHost.reportPrefix.count).utf8))
        if let error = report.error {
            throw Failure(description: "\(program) \(scenario): \(error)\nstderr:\n\(log.suffix(4000))")
        }
        return report
    }
}
