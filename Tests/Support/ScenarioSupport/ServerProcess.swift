import Foundation
import Synchronization

/// A display server the tests start for one scenario run (``WaylandCompositor``, ``PrivateXServer``):
/// a temporary folder of its own (mode 0700) holding its log, a process group of its own, and a
/// stop that ends, reaps and removes it exactly once.
final class ServerProcess: Sendable {
    /// What went wrong, with the server's log; each server throws it as its own `Failure`.
    struct Problem: Error {
        let description: String
    }

    let folder: URL
    let process: CleanSpawn
    private let stopped = Mutex(false)

    /// Makes `<tmp>/<folderPrefix>-<random>` and starts `arguments` in a process group of its own,
    /// with the environment `environment` gives for that folder, its standard output to `output`
    /// and its errors to `log` (names in the folder).
    /// - Throws: ``Problem`` when the program cannot be started (`installHint` says how to get
    ///   it); the folder is removed then.
    init(
        folderPrefix: String, arguments: [String], environment: (URL) -> [String: String], output: String, log: String,
        installHint: String
    ) throws {
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(folderPrefix)-\(tag)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            process = try CleanSpawn(
                arguments, environment: environment(folder),
                outputFiles: (output: folder.appendingPathComponent(output).path, errors: folder.appendingPathComponent(log).path),
                processGroup: true)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw Problem(description: "could not start \(arguments[0]) (\(installHint)): \(error)")
        }
        self.folder = folder
        logName = log
    }

    private let logName: String

    /// The path of `name` in the server's folder.
    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Polls `ready` every 20 ms until it gives a value. On the server's exit, the deadline or
    /// cancellation, stops the server and throws ``Problem`` naming `what` it waited for, with
    /// the end of its log.
    func waitUntilReady<Value>(for what: String, timeout: Duration, _ ready: () -> Value?) async throws -> Value {
        let deadline = ContinuousClock.now + timeout
        let name = process.pid
        while true {
            if let value = ready() { return value }
            let problem =
                process.hasEnded() ? "the server (pid \(name)) exited before \(what)"
                : ContinuousClock.now >= deadline ? "no \(what) after \(timeout)"
                : Task.isCancelled ? "cancelled while waiting for \(what)" : nil
            if let problem {
                let output = (try? String(contentsOfFile: path(logName), encoding: .utf8)) ?? ""
                await stop()
                throw Problem(description: "\(problem). Its log:\n\(output.suffix(3000))")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Ends the server and what it started (its process group), reaps it and removes its
    /// folder, once; later calls do nothing. `SIGTERM` first, `SIGKILL` after 5 s or on cancellation.
    func stop() async {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        kill(-process.pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(5)
        while !process.hasEnded(), ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
        }
        // Not reaped yet, so its group ID is still its own: this reaches nothing else.
        kill(-process.pid, SIGKILL)
        _ = process.waitForExit()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs `body` with a started `server` and stops it, whether `body` returns or throws.
    static func using<Server, Value>(
        _ server: Server, stop: (Server) async -> Void, _ body: (Server) async throws -> Value
    ) async throws -> Value {
        do {
            let result = try await body(server)
            await stop(server)
            return result
        } catch {
            await stop(server)
            throw error
        }
    }
}
