import Crypto
import Synchronization
public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A lock shared by processes: `flock(2)` on a file (created 0600 if missing), as
/// msal-extensions' `CrossPlatLock` does beside its cache file.
///
/// The lock file must be a regular file that this user owns and only this user can write (it is
/// never followed through a symbolic link); else taking the lock throws
/// ``TokenCacheStorageError/Code/unsafePermissions``. A ``FileTokenCacheStorage``'s locks also
/// hold their folder to the cache folder's rules.
///
/// The kernel drops the lock when its holder exits, so a killed process never leaves the cache
/// locked; the file itself stays (removing it would let two processes lock two different files).
/// The holder writes its process ID into the file, so that a waiter that gives up can say who
/// held the lock and whether that process still runs. Waiting is bounded: the lock is retried
/// every 10 ms until ``timeout``, then ``TokenCacheStorageError/Code/timedOut`` is thrown. An app
/// writing its own ``TokenCacheStorage`` can use it for ``TokenCacheStorage/withWriterLock(_:)``
/// and ``TokenCacheStorage/refreshLock(for:)``.
public struct TokenCacheLockFile: Sendable {
    /// The lock file.
    public let url: URL
    /// How long a writer waits for another one to finish.
    public let timeout: TimeInterval

    /// Whether the lock's folder is held to ``FileTokenCacheStorage``'s rules before the lock is
    /// taken (its locks live beside the cache file).
    let checksFolder: Bool

    public init(url: URL, timeout: TimeInterval = 10) {
        self.init(url: url, timeout: timeout, checksFolder: false)
    }

    init(url: URL, timeout: TimeInterval, checksFolder: Bool) {
        self.url = url
        self.timeout = timeout
        self.checksFolder = checksFolder
    }

    /// This lock, waited for at least `seconds`.
    func waiting(atLeast seconds: TimeInterval) -> TokenCacheLockFile {
        TokenCacheLockFile(url: url, timeout: max(timeout, seconds), checksFolder: checksFolder)
    }

    /// A lock file beside this one for `key` (its name holds a digest of `key`, never `key`
    /// itself), waited for at most `timeout` (this lock's timeout when `nil`).
    public func sibling(for key: String, timeout: TimeInterval? = nil) -> TokenCacheLockFile {
        let digest = SHA256.hash(data: Data(key.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        return TokenCacheLockFile(
            url: url.deletingLastPathComponent().appendingPathComponent("\(url.lastPathComponent).\(digest)"),
            timeout: timeout ?? self.timeout, checksFolder: checksFolder)
    }

    /// Runs `body` holding the lock (`flock(LOCK_EX)`), released when `body` returns or throws.
    public func withLock<T>(_ body: () throws(TokenCacheStorageError) -> T) throws(TokenCacheStorageError) -> T {
        let fd = try openFile()
        defer { close(fd) }  // closing the descriptor releases the lock
        let deadline = Date().addingTimeInterval(timeout)
        while !(try tryLock(fd)) {
            guard Date() < deadline else { throw timedOut(fd) }
            usleep(10_000)
        }
        return try body()
    }

    /// Takes the lock without blocking a thread while it waits (the task sleeps between tries).
    /// Returns the held lock, or throws `timedOut` after ``timeout`` (naming the holder).
    func acquire() async throws(TokenCacheStorageError) -> Held {
        let fd = try openFile()
        let deadline = Date().addingTimeInterval(timeout)
        do throws(TokenCacheStorageError) {
            while !(try tryLock(fd)) {
                guard Date() < deadline else { throw timedOut(fd) }
                try? await Task.sleep(for: .milliseconds(10))
            }
        } catch {
            close(fd)
            throw error
        }
        return Held(fd: fd)
    }

    /// A lock taken by ``acquire()``; ``release()`` ends it (closing the descriptor), once.
    final class Held: Sendable {
        private let fd: Int32
        private let released = Mutex(false)

        fileprivate init(fd: Int32) { self.fd = fd }

        func release() {
            let first = released.withLock { done in
                defer { done = true }
                return !done
            }
            if first { close(fd) }
        }

        deinit { release() }
    }

    // MARK: - The file

    private func openFile() throws(TokenCacheStorageError) -> Int32 {
        let directory = url.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: directory.path) {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw TokenCacheStorageError(.fileSystem, "The token cache lock folder \(directory.path) could not be created: \(error.localizedDescription)")
            }
        }
        if checksFolder { try FileTokenCacheStorage.checkFolder(directory) }
        // Never through a symbolic link: the holder truncates the file and writes its ID into it.
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            if errno == ELOOP {
                throw TokenCacheStorageError(
                    .unsafePermissions,
                    "The token cache lock file \(url.path) is a symbolic link, which this library does not follow (it writes into its lock files); delete it.")
            }
            throw TokenCacheStorageError(.fileSystem, "The token cache lock file \(url.path) could not be opened: \(String(cString: strerror(errno))).")
        }
        do throws(TokenCacheStorageError) {
            try checkOwnFile(fd)
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Refuses a lock file that is not a regular file this user owns and only this user can
    /// write: someone else could hold it, swap it, or have this process write into their file.
    private func checkOwnFile(_ fd: Int32) throws(TokenCacheStorageError) {
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            throw TokenCacheStorageError(.fileSystem, "The token cache lock file \(url.path) could not be examined: \(String(cString: strerror(errno))).")
        }
        let regular = status.st_mode & S_IFMT == S_IFREG
        guard regular, status.st_uid == geteuid(), status.st_mode & 0o022 == 0 else {
            let what = regular ? "mode \(FileTokenCacheStorage.modeText(status.st_mode)), owned by \(FileTokenCacheStorage.userName(status.st_uid))" : "not a regular file"
            throw TokenCacheStorageError(
                .unsafePermissions,
                "The token cache lock file \(url.path) (\(what)) is not this user's own file that only they can write, so it was not used; "
                    + "delete it (the next lock makes a new one with mode 0600).")
        }
    }

    /// One try; on success the file says who holds the lock (this process).
    private func tryLock(_ fd: Int32) throws(TokenCacheStorageError) -> Bool {
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            let owner = Array("\(getpid())\n".utf8)
            if ftruncate(fd, 0) == 0 { _ = owner.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
            return true
        }
        let failure = errno
        guard failure == EWOULDBLOCK || failure == EINTR else {
            throw TokenCacheStorageError(.fileSystem, "The token cache lock \(url.path) could not be taken: \(String(cString: strerror(failure))).")
        }
        return false
    }

    /// The owner check of a waiter that gives up: who wrote the file last, and whether it runs.
    private func timedOut(_ fd: Int32) -> TokenCacheStorageError {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count, 0)
        let text = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
        let holder: String
        if let pid = Int32(text), pid > 0 {
            holder = kill(pid, 0) == 0 || errno == EPERM
                ? "process \(pid), which still runs,"
                : "a descriptor inherited from process \(pid), which has ended,"
        } else {
            holder = "another process"
        }
        return TokenCacheStorageError(.timedOut, "\(holder.prefix(1).uppercased() + holder.dropFirst()) held the token cache lock \(url.path) for more than \(Int(timeout)) seconds; try again.")
    }
}
