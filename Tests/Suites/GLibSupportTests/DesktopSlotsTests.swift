import Foundation
import ScenarioSupport
import Synchronization
import Testing

/// The desktop slots that keep a full run from starting every sign-in window at once.
/// (No `.desktop` trait here: the refusal below needs a test without a slot.)
@Suite("Desktop slots: a few tests drive a desktop at once, the rest wait their turn")
struct DesktopSlotsTests {
    /// Holders that have entered and not yet been let go, and a way to let the first one go.
    final class Holders: Sendable {
        let inside = Mutex<[Int]>([])
        let entered = Mutex<[Int]>([])
        let gates = Mutex<[Int: CheckedContinuation<Void, Never>]>([:])

        func hold(_ id: Int, in pool: SlotPool) async {
            await pool.holding {
                inside.withLock { $0.append(id) }
                entered.withLock { $0.append(id) }
                await withCheckedContinuation { continuation in gates.withLock { $0[id] = continuation } }
                inside.withLock { $0.removeAll { $0 == id } }
            }
        }

        func letGo(_ id: Int) -> Bool {
            guard let gate = gates.withLock({ $0.removeValue(forKey: id) }) else { return false }
            gate.resume()
            return true
        }
    }

    @Test("At most `count` bodies run at once; the next waiter (first come, first served) runs when one ends")
    func slotsLimitAndOrder() async throws {
        let pool = SlotPool(count: 2)
        let holders = Holders()
        try await withThrowingTaskGroup { group in
            // One at a time, each waiting in line before the next comes.
            for id in 0..<4 {
                group.addTask { await holders.hold(id, in: pool) }
                if id < 2 {
                    #expect(await ScenarioHost.wait { holders.gates.withLock { $0[id] != nil } }, "holder \(id) got a free slot")
                } else {
                    #expect(await ScenarioHost.wait { pool.waiting == id - 1 }, "holder \(id) waits in line")
                }
            }
            // Two inside, two waiting: a short look, for something that must not happen.
            #expect(await !ScenarioHost.wait(upTo: .milliseconds(500)) { holders.entered.withLock { $0.count } > 2 })
            #expect(holders.inside.withLock { $0 } == [0, 1])
            #expect(holders.letGo(1))
            #expect(await ScenarioHost.wait { holders.gates.withLock { $0[2] != nil } }, "the first waiter took the slot")
            #expect(holders.entered.withLock { $0 } == [0, 1, 2])
            #expect(holders.letGo(0) && holders.letGo(2))
            #expect(await ScenarioHost.wait { holders.gates.withLock { $0[3] != nil } })
            #expect(holders.letGo(3))
            try await group.waitForAll()
        }
        #expect(holders.entered.withLock { $0 } == [0, 1, 2, 3])
        #expect(holders.inside.withLock { $0 }.isEmpty)
    }

    @Test("A task holding a slot runs nested work at once (no second slot, no deadlock); its children hold it too")
    func nestedWorkRunsInTheHeldSlot() async {
        #expect(!DesktopSlots.isHeld)
        let inner = await DesktopSlots.holding {
            await DesktopSlots.holding {
                await withTaskGroup(of: Bool.self) { group in
                    for _ in 0..<(DesktopSlots.count + 2) { group.addTask { DesktopSlots.isHeld } }
                    return await group.reduce(true) { $0 && $1 }
                }
            }
        }
        #expect(inner, "child tasks see the slot")
        #expect(!DesktopSlots.isHeld, "released after")
    }

    @Test("The slots are the machine's: while another process holds every one, a holder waits; it gets one as soon as that process ends")
    func slotsAreSharedWithOtherProcesses() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("slots-\(UInt32.random(in: 0...UInt32.max))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let slots = MachineSlots(directory: folder, count: 2)
        // Another test run: util-linux's flock(1) holds both lock files, then says so.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ready = folder.appendingPathComponent("ready").path
        let other = try CleanSpawn(
            ["flock", "-x", folder.appendingPathComponent("slot-0.lock").path,
             "flock", "-x", folder.appendingPathComponent("slot-1.lock").path,
             "sh", "-c", "touch \"$0\" && exec sleep 600", ready],
            environment: ProcessInfo.processInfo.environment, processGroup: true)
        defer { kill(-other.pid, SIGKILL); _ = other.waitForExit() }
        #expect(await ScenarioHost.wait { FileManager.default.fileExists(atPath: ready) }, "the other process holds both slots")
        let entered = Mutex(false)
        let holder = Task { await slots.holding { entered.withLock { $0 = true } } }
        // Something that must not happen: a short look.
        #expect(await !ScenarioHost.wait(upTo: .milliseconds(700)) { entered.withLock { $0 } }, "no slot while the other process holds both")
        kill(-other.pid, SIGKILL)
        _ = other.waitForExit()
        #expect(await ScenarioHost.wait { entered.withLock { $0 } }, "a slot once the other process ended")
        await holder.value
        // Let go after the body: a third holder gets a slot at once, two at a time.
        let both = await slots.holding { await slots.holding { true } }
        #expect(both)
    }

    @Test("A scenario program started outside a slot is refused at once, naming the trait to add")
    func scenarioOutsideASlotIsRefused() async throws {
        let failure = try await #require(throws: ScenarioRunner.Failure.self) {
            try await ScenarioRunner.run(GLibScenario.neverFinishes, environment: ["SCENARIO_TIMEOUT": "1"])
        }
        #expect(failure.description.contains("outside a desktop slot"), "\(failure)")
        #expect(failure.description.contains(".desktop"), "\(failure)")
    }
}
