import Foundation
import ScenarioSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@testable import SignIn
@testable import TokenCache

/// The cross-process refresh lock beside a store: a holder that was killed never blocks, a holder
/// that hangs is waited for a bounded time and named.
@Suite struct TokenCacheLockFileTests {
    /// A `TokenCacheScenarios hold-lock` process holding `key`'s refresh lock of the file store in `directory`.
    func startHolder(key: String, directory: URL) async throws -> CleanSpawn {
        var environment = ProcessInfo.processInfo.environment
        environment["STORE"] = "file:\(directory.appendingPathComponent("cache.json").path)"
        environment["SCENARIO_TIMEOUT"] = "120"
        let holder = try CleanSpawn(
            [TokenCacheScenario.program, TokenCacheCommand.holdLock.rawValue, key, directory.path], environment: environment,
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
        // Bounded by the 1 s limit; the margin is for a loaded machine (a full CI run on two cores
        // took 22.6 s here to resume the test's async work), a hang would be unbounded.
        #expect(Date().timeIntervalSince(started) < Double(Patience.event.components.seconds), "bounded by the 1 s limit")
        // Another account's lock is another file: not held.
        let other = try await refreshLock(key: "refresh max", in: directory, timeout: 1).acquire()
        other.release()
    }

    /// What a lock file is before a process takes the lock.
    enum PlantedLockFile: String, Sendable, CaseIterable, CustomTestStringConvertible {
        case linkToAnotherFile = "a symbolic link to another file"
        case writableByGroup = "a file its group can write (0660)"
        case writableByAll = "a file anyone can write (0666)"
        case ownedByNobody = "a file owned by nobody"

        var testDescription: String { rawValue }
    }

    /// The holder truncates its lock file and writes its process ID into it: a lock file that is
    /// a link, someone else's, or one others can write is refused, and what it points to is left as it was.
    @Test(arguments: PlantedLockFile.allCases)
    func aLockFileSomeoneElseCouldHavePlantedIsRefusedAndLeftAlone(_ planted: PlantedLockFile) async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lockURL = directory.appendingPathComponent("cache.json.lock")
        let victim = directory.appendingPathComponent("precious.txt")
        try Data("keep me\n".utf8).write(to: victim)
        switch planted {
        case .linkToAnotherFile:
            #expect(symlink(victim.path, lockURL.path) == 0)
        case .writableByGroup, .writableByAll, .ownedByNobody:
            try Data("keep me\n".utf8).write(to: lockURL)
            let mode: mode_t = planted == .writableByGroup ? 0o660 : planted == .writableByAll ? 0o666 : 0o600
            #expect(chmod(lockURL.path, mode) == 0)
            if planted == .ownedByNobody {
                try #require(geteuid() == 0, "chown to nobody needs root, as the test machines run")
                #expect(chown(lockURL.path, 65534, 65534) == 0)
            }
        }
        let lock = TokenCacheLockFile(url: lockURL, timeout: 1)
        let writer = try #require(throws: TokenCacheStorageError.self) { try lock.withLock { () throws(TokenCacheStorageError) in true } }
        #expect(writer.code == .unsafePermissions)
        #expect(writer.message.contains(lockURL.path), "names the lock file: \(writer.message)")
        var failure: TokenCacheStorageError?
        do throws(TokenCacheStorageError) {
            _ = try await lock.acquire()
        } catch {
            failure = error
        }
        #expect(failure?.code == .unsafePermissions)
        let written = planted == .linkToAnotherFile ? victim : lockURL
        #expect(try String(contentsOf: written, encoding: .utf8) == "keep me\n", "nothing was written through or into it")

        // The person deletes it, as the message says: the next lock makes its own 0600 file.
        #expect(unlink(lockURL.path) == 0)
        #expect(try lock.withLock { () throws(TokenCacheStorageError) in true })
        var status = stat()
        #expect(lstat(lockURL.path, &status) == 0 && status.st_mode & 0o777 == 0o600 && status.st_mode & S_IFMT == S_IFREG)
        #expect(try String(contentsOf: lockURL, encoding: .utf8) == "\(getpid())\n")
    }
}
