import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs a helper program (bash, python3) off the main thread, bounded by a timeout.
enum ScriptRunner {
    struct Output: Sendable {
        var status: Int32
        var standardOutput: String
        var standardError: String
        var timedOut: Bool
    }

    /// A started program that can be stopped from another thread.
    final class Handle: Sendable {
        private let pid: Int32
        private let finished = Mutex(false)
        fileprivate init(_ pid: Int32) { self.pid = pid }
        /// Sends SIGTERM, unless the program already ended (and its pid may be reused).
        func terminate() { finished.withLock { if !$0 { _ = kill(pid, SIGTERM) } } }
        fileprivate func markFinished() { finished.withLock { $0 = true } }
    }

    /// Runs `executable arguments` with `environment` added; `started` receives a handle to stop it.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: TimeInterval, started: @Sendable (Handle) -> Void = { _ in }
    ) async throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        // Files, not pipes: a daemon the program starts may inherit the descriptors and would
        // keep a pipe open (no end of file) for as long as it runs.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signin-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputURL = directory.appendingPathComponent("stdout"), errorURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let stdout = try FileHandle(forWritingTo: outputURL), stderr = try FileHandle(forWritingTo: errorURL)
        defer {
            try? stdout.close()
            try? stderr.close()
        }
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let handle = Handle(process.processIdentifier)
        started(handle)
        // Foundation's own exit notification (terminationHandler, waitUntilExit) never comes in
        // this test process (the child stays a zombie), so reap the child here with waitpid.
        let pid = process.processIdentifier
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        var status: Int32 = 0
        var exitStatus: Int32?
        while exitStatus == nil {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped != 0 { handle.markFinished() }
            if reaped == pid {
                exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            } else if reaped == -1 {
                exitStatus = process.terminationStatus  // reaped by Foundation after all
            } else {
                if Date() > deadline, !timedOut {
                    timedOut = true
                    handle.terminate()
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        handle.markFinished()
        return Output(
            status: exitStatus ?? -1,
            standardOutput: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "",
            timedOut: timedOut)
    }
}

