public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fixture's server (a script of `Tests/Fixtures`) started in a folder of the test's: it writes
/// its output and errors to `out` and `err` there, and, once it listens, what a test needs to know
/// of it (a JSON object of strings: its address, its keys' names) to `ready`.
public struct FixtureServer: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The folder it runs in.
    public let directory: URL
    public let child: CleanSpawn
    /// What it wrote to `ready`.
    public let facts: [String: String]

    /// Starts `arguments` in `directory` and waits (a deadline for a loaded machine: Python with
    /// cryptography takes seconds to start there) until its `ready` holds every one of `keys`.
    /// - Throws: ``Failure`` when it ends first, with its errors, or is not ready in time (then it
    ///   is killed).
    public static func start(
        _ arguments: [String], in directory: URL, environment: [String: String] = ProcessInfo.processInfo.environment,
        keys: [String] = [], timeout: Duration = Patience.scaled(.seconds(60))
    ) async throws -> FixtureServer {
        let child = try CleanSpawn(
            arguments, environment: environment,
            outputFiles: (directory.appendingPathComponent("out").path, directory.appendingPathComponent("err").path))
        let name = URL(fileURLWithPath: arguments.last { $0.hasSuffix(".py") } ?? arguments[0]).lastPathComponent
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let data = try? Data(contentsOf: directory.appendingPathComponent("ready")),
                let facts = (try? JSONSerialization.jsonObject(with: data)) as? [String: String],
                keys.allSatisfy({ facts[$0] != nil })
            {
                return FixtureServer(directory: directory, child: child, facts: facts)
            }
            if let status = child.exitStatusIfEnded() {
                let log = (try? String(contentsOf: directory.appendingPathComponent("err"), encoding: .utf8)) ?? ""
                throw Failure(description: "\(name) ended (exit \(status)) before it was ready:\n\(log)")
            }
            try await Task.sleep(for: .milliseconds(50))  // polling the file it writes, with a deadline
        }
        kill(child.pid, SIGKILL)
        _ = child.waitForExit()
        throw Failure(description: "\(name) was not ready within \(timeout)")
    }
}
