public import Foundation
import Synchronization

/// How many tests drive a desktop at once on the machine: a test case that starts sign-in
/// windows, web processes, browsers or compositors holds one of ``count`` slots from its start to
/// its end (the `.desktop` trait of TestTraits); the others wait for one before they start.
/// The slots are the machine's, not the process's (``MachineSlots``, lock files in `/tmp`): two
/// test runs side by side (two clones, a run beside CI) share them instead of each loading the
/// machine as if it were alone.
///
/// Swift Testing runs every suite at once. A full run on two cores had some twenty scenario
/// programs, ten web processes and nine Chromiums running together (load average 48): a web
/// process then took more than the 30 s a page is given to start, a key's ceremony more than the
/// 20 s its question is given to show. Deadlines scaled for a loaded machine cannot cover a
/// machine loaded twenty times over, and a test that waits here has not started its clocks.
///
/// A test case holds its slot for all it starts, however many programs at once (no test can wait
/// for a second slot while holding one: no deadlock). ``ScenarioRunner/run(_:in:arguments:environment:timeout:launcher:display:)``
/// refuses to start a scenario program in the test process outside a slot, so that a suite that
/// forgot its trait fails at once instead of loading the machine.
public enum DesktopSlots {
    /// `WEBVIEW_HOST_TEST_DESKTOPS`, or three per processor (at least two): most tests spend
    /// much of their time waiting (for a window, for a thing that must not happen), so more than
    /// one per processor keeps the processors busy, and few enough that none starves.
    public static let count: Int = {
        if let text = ProcessInfo.processInfo.environment["WEBVIEW_HOST_TEST_DESKTOPS"], let value = Int(text), value > 0 {
            return value
        }
        return max(2, 3 * ProcessInfo.processInfo.activeProcessorCount)
    }()

    /// Whether the running task (or the task it runs in) holds a slot.
    @TaskLocal public static var isHeld = false

    private static let pool = SlotPool(count: count)
    private static let machine = MachineSlots(directory: URL(fileURLWithPath: "/tmp/webviewhost-tests-desktops"), count: count)

    /// Runs `body` holding a slot, taken first-come first-served in this process, then one of the
    /// machine's (waiting as long as it takes); a task that already holds one runs `body` at once.
    public static func holding<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        if isHeld { return try await body() }
        return try await pool.holding {
            try await machine.holding { try await $isHeld.withValue(true) { try await body() } }
        }
    }

    /// Whether this process is the test process (where scenario programs must run in a slot),
    /// not a benchmark or a scenario program.
    static var isTestProcess: Bool { CommandLine.arguments.first?.hasSuffix(".xctest") == true }
}

/// A counting semaphore for tasks: at most `count` bodies run at once, the others wait in the
/// order they came.
public final class SlotPool: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    public init(count: Int) {
        state = Mutex(State(free: max(1, count)))
    }

    /// How many wait for a slot now.
    public var waiting: Int { state.withLock { $0.waiting.count } }

    /// Runs `body` once a slot is free, and frees it after.
    public func holding<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    private func release() {
        // The slot passes straight to the first waiter, if any.
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

/// Slots shared by every process on the machine: `count` lock files in `directory`, each held
/// with `flock` by one holder at a time (a process that ends, however it ends, lets its go).
///
/// Holders take turns at a turnstile (another lock file, waited for in a blocking `flock` on a
/// thread of its own): the one at the turnstile takes the first free slot, looking again every
/// 100 ms while every slot is another's (no event of this process says when another process lets
/// one go). So a process whose tests queue up cannot take every slot back the moment it frees
/// one: a second run's holder, waiting at the turnstile, gets the next.
public final class MachineSlots: Sendable {
    public let directory: URL
    public let count: Int

    public init(directory: URL, count: Int) {
        self.directory = directory
        self.count = max(1, count)
    }

    /// Runs `body` holding one of the machine's slots, and lets it go after (thrown or not).
    public func holding<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        let descriptor = await acquire()
        defer { if descriptor >= 0 { close(descriptor) } }
        return try await body()
    }

    /// A descriptor holding a slot's lock; -1 when the folder cannot be used (then no slot is
    /// waited for: the process's own slots still hold).
    private func acquire() async -> Int32 {
        // Any user's test run on the machine takes part (a folder and files anyone may lock).
        guard (try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)) != nil else { return -1 }
        _ = chmod(directory.path, 0o1777)
        let turnstile = Self.open(directory.appendingPathComponent("turnstile.lock"))
        guard turnstile >= 0 else { return -1 }
        defer { close(turnstile) }
        await Self.lock(turnstile)
        while true {
            var opened = 0
            for index in 0..<count {
                let descriptor = Self.open(directory.appendingPathComponent("slot-\(index).lock"))
                guard descriptor >= 0 else { continue }
                opened += 1
                if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return descriptor }
                close(descriptor)
            }
            guard opened > 0, !Task.isCancelled else { return -1 }
            try? await Task.sleep(for: .milliseconds(100))  // another process holds every slot: look again
        }
    }

    private static func open(_ file: URL) -> Int32 {
        let descriptor = Glibc.open(file.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        if descriptor >= 0 { _ = fchmod(descriptor, 0o666) }
        return descriptor
    }

    /// Waits for `descriptor`'s exclusive lock in a blocking `flock` on a thread of its own.
    private static func lock(_ descriptor: Int32) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
                continuation.resume()
            }
        }
    }
}
