import CGLib
import Foundation
import GLibSupport

/// A scenario: main-actor code that runs inside a real GLib main loop (as a GTK app has it) and
/// returns what it observed.
public typealias Scenario = @MainActor (_ arguments: [String]) async throws -> ScenarioReport

/// The program side of a GTK scenario: a real GTK main loop with the main-loop bridge, as a
/// desktop app has it. ``main(_:initializeToolkit:scenarios:)`` runs the scenario named by the
/// first argument, prints its report (with `gdkDisplay`, the GdkDisplay's type name) as one JSON
/// line and exits; it never hangs (a watchdog ends it after `SCENARIO_TIMEOUT` seconds, default 90,
/// with the stacks of all its threads in the report's error).
public enum ScenarioHost {
    public static let reportPrefix = "SCENARIO-REPORT "

    /// The main loop the scenario runs in; `quit` ends the program.
    @MainActor private static var loop: OpaquePointer?

    /// `initializeToolkit` opens the display (`gtk_init_check` for GTK 3, `gtk_init_check()` for
    /// GTK 4) and returns the default `GdkDisplay *`, or `nil` when there is none. `scenarios`
    /// gives the scenario for a name (an exhaustive `switch`); a name on the command line that
    /// is no case of `Name` ends the program with a usage message and status 2.
    @MainActor
    public static func main<Name: ScenarioName>(
        _ names: Name.Type, initializeToolkit: @MainActor () -> UnsafeMutableRawPointer?,
        scenarios: @MainActor (Name) -> Scenario
    ) -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first.flatMap(Name.init(rawValue:)) else {
            let known = Name.allCases.map(\.rawValue).joined(separator: "|")
            let given = arguments.first.map { "unknown scenario \"\($0)\"\n" } ?? ""
            FileHandle.standardError.write(Data("\(given)usage: \(CommandLine.arguments[0]) <\(known)> [arguments]\n".utf8))
            exit(2)
        }
        let scenario = scenarios(name)
        run(scenario, arguments: arguments, initializeToolkit: initializeToolkit)
    }

    @MainActor
    private static func run(
        _ scenario: @escaping Scenario, arguments: [String], initializeToolkit: @MainActor () -> UnsafeMutableRawPointer?
    ) -> Never {
        guard let display = initializeToolkit() else {
            emit(ScenarioReport(error: "gtk_init_check failed: no display (run under xvfb-run -a, or see WaylandCompositor)"))
            exit(3)
        }
        // The windowing system GTK chose (GdkX11Display, GdkWaylandDisplay), in every report.
        let displayType = String(cString: g_type_name(wvh_object_type(display)))
        MainLoopBridge.install()
        let limit = UInt32(ProcessInfo.processInfo.environment["SCENARIO_TIMEOUT"].flatMap(UInt32.init) ?? 90)
        // The watchdog says where every thread was (gdb on this process) before it ends the program;
        // the test's failure shows it. The test runner's own gdb needs the same permission, for a
        // main loop so stuck that this never runs.
        ThreadStacks.allowDebuggers()
        g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, limit, { _ in
            let stacks = ThreadStacks.read(pid: getpid())
            ScenarioHost.emit(ScenarioReport(error: "scenario watchdog: no result in time. Its threads' stacks:\n\(stacks)"))
            exit(4)
        }, nil, nil)
        Task { @MainActor in
            do {
                var report = try await scenario(Array(arguments.dropFirst()))
                report[.gdkDisplay] = displayType
                emit(report)
            } catch {
                emit(ScenarioReport(error: "scenario threw: \(error)"))
            }
            g_main_loop_quit(loop)
        }
        loop = g_main_loop_new(nil, 0)
        g_main_loop_run(loop)
        exit(0)
    }

    static func emit(_ report: ScenarioReport) {
        let data = (try? JSONEncoder().encode(report)) ?? Data("{}".utf8)
        FileHandle.standardOutput.write(Data(reportPrefix.utf8) + data + Data("\n".utf8))
    }

    /// Waits until `condition` holds, looking every 25 ms, for at most `deadline`
    /// (``Patience/event`` unless said); whether it came. On the caller's actor: on the main
    /// actor of a scenario the GTK main loop runs meanwhile (the bridge keeps the `await` resuming).
    ///
    /// A main thread held up past the deadline (a loaded machine: a frame, a synchronous call)
    /// comes back with the deadline gone and the events of that time still queued (a timer's
    /// tick, a signal): they get a last turn before the final look, so the wait measures the
    /// program, not the machine's stall.
    nonisolated(nonsending)
    public static func wait(upTo deadline: Duration = Patience.event, until condition: () -> Bool) async -> Bool {
        let end = ContinuousClock.now + deadline
        while !condition() {
            if ContinuousClock.now >= end {
                try? await Task.sleep(for: .milliseconds(200))
                return condition()
            }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return true
    }

    /// Lets the GTK main loop run for `duration` (the bridge keeps this `await` resuming).
    @MainActor
    public static func idle(_ duration: Duration) async {
        try? await Task.sleep(for: duration)
    }
}
