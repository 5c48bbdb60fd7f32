import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// These run `GLibScenarios` in its own process with a real `gtk_main()` (under `xvfb-run -a`).
@Suite("Main-loop bridge and signals, in a real GTK main loop", .desktop)
struct MainLoopBridgeTests {
    @Test("A main-actor Task, a DispatchQueue.main block and an await on a main-actor API resume inside gtk_main()")
    func resumesInsideGTKMain() async throws {
        let report = try await ScenarioRunner.run(GLibScenario.bridgeResumes)
        #expect(report[.insideGTKMain] == true)
        #expect(report[.taskOnMainThread] == true)
        #expect(report[.dispatchOnMainThread] == true)
        #expect(report[.awaitedValue] == 42)
        #expect(report[.order] == ["task", "dispatch"])
        #expect(report[.glibTimeoutFired] == true, "GLib's own sources keep running beside the bridge")
    }

    @Test("An idle gtk_main() with the bridge installed uses almost no CPU for a second (no busy loop)")
    func idleCostsNothing() async throws {
        let report = try await ScenarioRunner.run(GLibScenario.bridgeIdleCpu)
        let cpu = try #require(report[.cpuSeconds])
        let wall = try #require(report[.wallSeconds])
        #expect(wall >= 0.99)
        #expect(cpu < 0.05, "an idle second cost \(cpu) s of CPU")
    }

    @Test("SignalConnections: handlers run, GLib counts them, disconnectAll removes them and frees their closures")
    func signalConnections() async throws {
        let report = try await ScenarioRunner.run(GLibScenario.signals)
        #expect(report[.baseline] == 0)
        #expect(report[.connected] == 2)
        #expect(report[.notified] == ["after"], "the notify handler ran once, before disconnect")
        #expect(report[.afterDisconnect] == 0)
        #expect(report[.closureAliveWhileConnected] == true)
        #expect(report[.closureReleasedAfterDisconnect] == true)
        #expect(report[.countAfter] == 0)
    }
}
