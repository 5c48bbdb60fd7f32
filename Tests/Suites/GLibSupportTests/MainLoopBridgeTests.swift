import Foundation
import ScenarioSupport
import Testing

/// These run `GLibScenarios` in its own process with a real `gtk_main()` (under `xvfb-run -a`).
@Suite("Main-loop bridge and signals, in a real GTK main loop")
struct MainLoopBridgeTests {
    @Test("A main-actor Task, a DispatchQueue.main block and an await on a main-actor API resume inside gtk_main()")
    func resumesInsideGTKMain() async throws {
        let report = try await ScenarioRunner.run("GLibScenarios", "bridge-resumes")
        #expect(report.bool("insideGTKMain") == true)
        #expect(report.bool("taskOnMainThread") == true)
        #expect(report.bool("dispatchOnMainThread") == true)
        #expect(report.int("awaitedValue") == 42)
        #expect(report.strings("order") == ["task", "dispatch"])
        #expect(report.bool("glibTimeoutFired") == true, "GLib's own sources keep running beside the bridge")
    }

    @Test("An idle gtk_main() with the bridge installed uses almost no CPU for a second (no busy loop)")
    func idleCostsNothing() async throws {
        let report = try await ScenarioRunner.run("GLibScenarios", "bridge-idle-cpu")
        let cpu = try #require(report.double("cpuSeconds"))
        let wall = try #require(report.double("wallSeconds"))
        #expect(wall >= 0.99)
        #expect(cpu < 0.05, "an idle second cost \(cpu) s of CPU")
    }

    @Test("SignalConnections: handlers run, GLib counts them, disconnectAll removes them and frees their closures")
    func signalConnections() async throws {
        let report = try await ScenarioRunner.run("GLibScenarios", "signals")
        #expect(report.int("baseline") == 0)
        #expect(report.int("connected") == 2)
        #expect(report.strings("notified") == ["after"], "the notify handler ran once, before disconnect")
        #expect(report.int("afterDisconnect") == 0)
        #expect(report.bool("closureAliveWhileConnected") == true)
        #expect(report.bool("closureReleasedAfterDisconnect") == true)
        #expect(report.int("countAfter") == 0)
    }
}
