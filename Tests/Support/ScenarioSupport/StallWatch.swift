import Foundation
import Synchronization

/// Says where the test process is when its main queue or Swift's cooperative pool stops running
/// work for ``threshold``: full CI runs have seen both held for 20 to 97 s (a wait of 30 s on the
/// main actor timing out, a pool task not resumed), and what held them was never seen.
///
/// A thread of its own sends a heartbeat to each every second; when one has not answered for
/// ``threshold``, it prints every thread's stack (``ThreadStacks``, eu-stack) on standard error,
/// once per stall, and appends it to `$TMPDIR/webviewhost-test-stalls.log`. It costs a block
/// each second while all is well. Started by ``Patience`` (nearly every test waits through it),
/// in the test process only. (On Linux the main queue is drained on a Dispatch worker thread,
/// not the main thread: the stack that holds it is on a thread named "…qos.overcommit".)
enum StallWatch {
    static let threshold: Duration = .seconds(10)

    private static let started: Bool = {
        // The test process only: a scenario's main queue is drained by its GTK main loop, which
        // its own watchdog (ScenarioRunner's time limit) already reads stacks for.
        guard CommandLine.arguments.first?.hasSuffix(".xctest") == true else { return false }
        let thread = Thread { watch() }
        thread.name = "wvh-stall-watch"
        thread.start()
        return true
    }()

    static func start() { _ = started }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// When each last ran a heartbeat (CLOCK_MONOTONIC, ms).
    private static let mainBeat = Atomic<Int64>(0)
    private static let poolBeat = Atomic<Int64>(0)

    private static func watch() {
        mainBeat.store(now(), ordering: .relaxed)
        poolBeat.store(now(), ordering: .relaxed)
        var reported: Set<String> = []
        let limit = Int64(threshold.components.seconds * 1000)
        while true {
            DispatchQueue.main.async { StallWatch.mainBeat.store(now(), ordering: .relaxed) }
            Task.detached { StallWatch.poolBeat.store(now(), ordering: .relaxed) }
            Thread.sleep(forTimeInterval: 1)
            let current = now()
            for (name, beat) in [("main queue", mainBeat.load(ordering: .relaxed)), ("cooperative pool", poolBeat.load(ordering: .relaxed))] {
                let silent = current - beat
                if silent < 2_000 { reported.remove(name) }
                guard silent >= limit, !reported.contains(name) else { continue }
                reported.insert(name)
                let stacks = ThreadStacks.read(pid: getpid())
                let text = "\n== WebviewHost tests: the \(name) has run nothing for \(silent / 1000) s (pid \(getpid()), \(Date())); every thread:\n\(stacks)\n==\n"
                FileHandle.standardError.write(Data(text.utf8))
                let log = FileManager.default.temporaryDirectory.appendingPathComponent("webviewhost-test-stalls.log")
                if let handle = FileHandle(forWritingAtPath: log.path) ?? {
                    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
                    return FileHandle(forWritingAtPath: log.path)
                }() {
                    handle.seekToEndOfFile()
                    handle.write(Data(text.utf8))
                    try? handle.close()
                }
            }
        }
    }
}
