import Foundation
import ScenarioSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@testable import SignIn

/// The cross-process refresh lock beside a store: a holder that was killed never blocks, a holder
/// that hangs is waited for a bounded time and named.
@Suite struct TokenCacheLockFileTests {
    /// A `TokenCacheScenarios hold-lock` process holding `key`'s refresh lock of the file store in `directory`.
    func startHolder(key: String, directory: URL) async throws -> CleanSpawn {
        let program = ScenarioRunner.productsDirectory.appendingPathComponent("TokenCacheScenarios").path
        var environment = ProcessInfo.processInfo.environment
        environment["STORE"] = "file:\(directory.appendingPathComponent("cache.json").path)"
        environment["SCENARIO_TIMEOUT"] = "120"
        let holder = try CleanSpawn(
            [program, "hold-lock", key, directory.path], environment: environment,
            outputFiles: (directory.appendingPathComponent("holder.out").path, directory.appendingPathComponent("holder.err").path),
            processGroup: true)
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("held").path) {
            if holder.exitStatusIfEnded() != nil || Date() > deadline {
                kill(-holder.pid, SIGKILL)
                throw GlewlwydError("the lock holder did not take the lock: \((try? String(contentsOf: directory.appendingPathComponent("holder.err"), encoding: .utf8)) ?? "")")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return holder
    }

    func refreshLock(key: String, in directory: URL, timeout: TimeInterval) throws -> TokenCacheLockFile {
        let storage = FileTokenCacheStorage(fileURL: directory.appendingPathComponent("cache.json"), lockTimeout: timeout)
        return try #require(storage.refreshLock(for: key))
    }

    @Test func aLockWhoseHolderWasKilledIsTakenAtOnce() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let holder = try await startHolder(key: "refresh kim", directory: directory)
        let lock = try refreshLock(key: "refresh kim", in: directory, timeout: 30)
        kill(-holder.pid, SIGKILL)
        _ = holder.waitForExit()
        let started = Date()
        let held = try await lock.acquire()
        held.release()
        #expect(Date().timeIntervalSince(started) < 5, "the kernel released the killed holder's lock")
        // The file stays (removing it would let two processes lock two files); it names the last holder.
        let owner = try String(contentsOf: lock.url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(owner == String(getpid()))
    }

    @Test func aHolderThatHangsIsWaitedForABoundedTimeAndNamed() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let holder = try await startHolder(key: "refresh lou", directory: directory)
        defer {
            kill(-holder.pid, SIGKILL)
            _ = holder.waitForExit()
        }
        kill(holder.pid, SIGSTOP)
        let lock = try refreshLock(key: "refresh lou", in: directory, timeout: 1)
        let started = Date()
        var failure: TokenCacheStorageError?
        do throws(TokenCacheStorageError) {
            _ = try await lock.acquire()
        } catch {
            failure = error
        }
        #expect(failure?.code == .timedOut)
        #expect(failure?.message.contains("Process \(holder.pid), which still runs") == true, "\(failure?.message ?? "")")
        #expect(Date().timeIntervalSince(started) < 15, "bounded by the 1 s limit")
        // Another account's lock is another file: not held.
        let other = try await refreshLock(key: "refresh max", in: directory, timeout: 1).acquire()
        other.release()
    }
}
