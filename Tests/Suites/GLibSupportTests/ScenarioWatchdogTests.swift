import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// A scenario that hangs fails its test with the stacks of all its threads (gdb), whether its own
/// watchdog ends it (its main loop still runs) or the test runner kills it (its main loop is
/// blocked, so the watchdog never fires): a hang in CI says where it stopped.
@Suite("A hung scenario's failure shows its threads' stacks", .desktop)
struct ScenarioWatchdogTests {
    @Test("The watchdog reports the stacks of all threads before it ends the program")
    func watchdogReportsStacks() async throws {
        let failure = try await #require(throws: ScenarioRunner.Failure.self) {
            try await ScenarioRunner.run(GLibScenario.neverFinishes, environment: ["SCENARIO_TIMEOUT": "1"])
        }
        let text = failure.description
        #expect(text.contains("scenario watchdog: no result in time"), "\(text)")
        // The main thread is in the watchdog, dispatched by the GLib main loop.
        #expect(text.contains("Thread 1 "), "\(text)")
        #expect(text.contains("g_main_"), "\(text)")
        #expect(text.contains("g_timeout_dispatch") || text.contains("ScenarioHost"), "\(text)")
    }

    @Test("The runner reads the stacks of a program whose main loop is blocked before it kills it")
    func runnerReportsStacksOfWhatItKills() async throws {
        let start = ContinuousClock.now
        let failure = try await #require(throws: ScenarioRunner.Failure.self) {
            // The watchdog would come too late: the runner kills first (1 s + its grace).
            try await ScenarioRunner.run(GLibScenario.blocksMainLoop, environment: ["SCENARIO_TIMEOUT": "600"], timeout: .seconds(1))
        }
        let text = failure.description
        #expect(text.contains("printed no report"), "\(text)")
        #expect(text.contains("killed. Its threads' stacks:"), "\(text)")
        #expect(text.contains("Thread 1 "), "\(text)")
        // The main thread, where it blocks: sleep() in the scenario's closure.
        #expect(text.contains("sleep"), "\(text)")
        #expect(
            ContinuousClock.now - start < .seconds(1) + ScenarioRunner.killGrace + ThreadStacks.deadline + Patience.scaled(.seconds(10)),
            "killed at once after its grace and the stacks")
    }

    @Test("A helper program (a GObject test's app) stopped at its time limit comes back with its threads' stacks")
    func scriptRunnerReportsStacksOfWhatItStops() async throws {
        let run = try await ScriptRunner.run("/usr/bin/python3", ["-c", "import time; time.sleep(600)"], timeout: 1)
        #expect(run.timedOut)
        let stacks = try #require(run.stacks, "no stacks")
        #expect(stacks.contains("Thread 1 "), "\(stacks)")
        #expect(stacks.contains("sleep") || stacks.contains("select"), "where it waited: \(stacks)")
        let quick = try await ScriptRunner.run("/usr/bin/python3", ["-c", "pass"], timeout: 60)
        #expect(!quick.timedOut && quick.stacks == nil && quick.status == 0)
    }

    @Test("gdb's backtrace, shortened: one line a frame, same stacks merged, the main thread first")
    func shortenedStacks() {
        let gdb = """
            [New LWP 17154]
            0x00007f0d6f51926f in __GI___poll (fds=0x5640d0f42840, nfds=6, timeout=431) at ../sysdeps/unix/sysv/linux/poll.c:29

            Thread 3 (Thread 0x7f0d00ff36c0 (LWP 17237) "ReceiveQueue"):
            #0  0x00007f0d6f51926f in __GI___poll (fds=..., nfds=..., timeout=...) at ../sysdeps/unix/sysv/linux/poll.c:29
            #1  0x00007f0d7133bccf in g_main_loop_run () from /lib/x86_64-linux-gnu/libglib-2.0.so.0
            #2  0x00007f0d73939931 in WTF::RunLoop::run() () from /lib/x86_64-linux-gnu/libjavascriptcoregtk-4.1.so.0

            Thread 2 (Thread 0x7f0d017f46c0 (LWP 17227) "ReceiveQueue"):
            #0  0x00007f0d6f51926f in __GI___poll (fds=..., nfds=..., timeout=...) at ../sysdeps/unix/sysv/linux/poll.c:29
            #1  0x00007f0d7133bccf in g_main_loop_run () from /lib/x86_64-linux-gnu/libglib-2.0.so.0
            #2  0x00007f0d73939931 in WTF::RunLoop::run() () from /lib/x86_64-linux-gnu/libjavascriptcoregtk-4.1.so.0

            Thread 1 (Thread 0x7f0d6e8a0f00 (LWP 17153) "EmbeddedScenari"):
            #0  __GI___clock_nanosleep (clock_id=..., flags=..., req=..., rem=...) at ../sysdeps/unix/sysv/linux/clock_nanosleep.c:78
            #1  0x00007f0d6f4f6d03 in __GI___nanosleep (req=..., rem=...) at ../sysdeps/unix/sysv/linux/nanosleep.c:25
            """
        #expect(ThreadStacks.shortened(gdb) == """
            Thread 1 "EmbeddedScenari":
              #0 __GI___clock_nanosleep (clock_nanosleep.c:78)
              #1 __GI___nanosleep (nanosleep.c:25)
            Threads 2, 3 "ReceiveQueue":
              #0 __GI___poll (poll.c:29)
              #1 g_main_loop_run (libglib-2.0.so.0)
              #2 WTF::RunLoop::run() (libjavascriptcoregtk-4.1.so.0)
            """)
        #expect(ThreadStacks.shortened("ptrace: Operation not permitted.") == "")
    }
}

/// eu-stack's output (what `ThreadStacks` reads first, in a fraction of a second) in gdb's shape,
/// so that one shortening serves both.
@Suite("eu-stack's stacks read as gdb's")
struct EuStackStacksTests {
    @Test("Threads renumbered with the main thread first, frames with their source line or module")
    func euStackAsGdb() {
        let pid = getpid()
        let euStack = """
            PID \(pid) - process
            TID \(pid + 7):
            #0  0x00007f21ce0ed503 __GI___poll - /usr/lib/x86_64-linux-gnu/libc.so.6
                ../sysdeps/unix/sysv/linux/poll.c:29:10
            #1  0x00007f21ce515ada g_main_loop_run - /usr/lib/x86_64-linux-gnu/libglib-2.0.so.0
            TID \(pid):
            #0  0x00007f21ce0ed503 clock_nanosleep@GLIBC_2.2.5 - /usr/lib/x86_64-linux-gnu/libc.so.6
                ../sysdeps/unix/sysv/linux/clock_nanosleep.c:71:10
            #1  0x00007f21ce0f0000
            """
        let shortened = ThreadStacks.shortened(ThreadStacks.gdbStyle(euStack: euStack, pid: pid))
        let lines = shortened.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Thread 1 ") == true, "the main thread (TID = PID) first: \(shortened)")
        #expect(lines.contains("  #0 clock_nanosleep@GLIBC_2.2.5 (clock_nanosleep.c:71)"), "\(shortened)")
        #expect(lines.contains("  #1 ?? ") || lines.contains("  #1 ??"), "a frame without a symbol: \(shortened)")
        #expect(lines.contains { $0.hasPrefix("Thread 2 ") }, "\(shortened)")
        #expect(lines.contains("  #0 __GI___poll (poll.c:29)"), "\(shortened)")
        #expect(lines.contains("  #1 g_main_loop_run (libglib-2.0.so.0)"), "\(shortened)")
    }
}
