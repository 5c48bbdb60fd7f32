public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs a helper program (bash, python3) off the main thread, bounded by a timeout.
public enum ScriptRunner {
    /// How a run ended: its exit status (-1 if it never ended), its output, and whether the
    /// timeout stopped it, with the stacks of all its threads then (``ThreadStacks``, read before
    /// it was stopped: what a test shows when a program hangs).
    public struct Output: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
        public var timedOut: Bool
        public var stacks: String? = nil
    }

    /// A started program that can be stopped from another thread.
    public final class Handle: Sendable {
        private let pid: Int32
        private let finished = Mutex(false)
        fileprivate init(_ pid: Int32) { self.pid = pid }
        /// Sends SIGTERM, unless the program already ended (and its pid may be reused).
        public func terminate() { finished.withLock { if !$0 { _ = kill(pid, SIGTERM) } } }
        fileprivate func markFinished() { finished.withLock { $0 = true } }
    }

    /// Runs `executable arguments` with `environment` added; `started` receives a handle to stop it.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: TimeInterval, started: @Sendable (Handle) -> Void = { _ in }
    ) async throws -> Output {
        let environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        // Files, not pipes: a daemon the program starts may inherit the descriptors and would
        // keep a pipe open (no end of file) for as long as it runs.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signin-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputURL = directory.appendingPathComponent("stdout"), errorURL = directory.appendingPathComponent("stderr")
        // CleanSpawn, not Foundation's Process: one owner reaps the child, and its signals are not blocked.
        let child = try CleanSpawn(
            [executable] + arguments, environment: environment, outputFiles: (outputURL.path, errorURL.path))
        let handle = Handle(child.pid)
        started(handle)
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        var stacks: String?
        var exitStatus: Int32?
        while exitStatus == nil {
            exitStatus = child.exitStatusIfEnded()
            if exitStatus != nil {
                handle.markFinished()  // reaped: its pid may be reused, so never signal it again
                break
            }
            if Date() > deadline, !timedOut {
                timedOut = true
                // Where every thread of the hung program was (gdb), before it is stopped.
                stacks = await ThreadStacks.read(pid: child.pid)
                handle.terminate()
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return Output(
            status: exitStatus ?? -1,
            standardOutput: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "",
            timedOut: timedOut, stacks: stacks)
    }
}

