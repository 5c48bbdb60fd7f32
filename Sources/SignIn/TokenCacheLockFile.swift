public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A writer lock shared by processes: `flock(2)` on a file (created 0600 if missing).
///
/// The kernel drops the lock when its holder exits, so a crashed writer never leaves the cache
/// locked. Waiting is bounded: the lock is retried every 10 ms until ``timeout``, then
/// ``TokenCacheStorageError/Code/timedOut`` is thrown. An app writing its own
/// ``TokenCacheStorage`` can use it for ``TokenCacheStorage/withWriterLock(_:)``.
public struct TokenCacheLockFile: Sendable {
    /// The lock file.
    public let url: URL
    /// How long a writer waits for another one to finish.
    public let timeout: TimeInterval

    public init(url: URL, timeout: TimeInterval = 10) {
        self.url = url
        self.timeout = timeout
    }

    /// Runs `body` holding the lock (`flock(LOCK_EX)`), released when `body` returns or throws.
    public func withLock<T>(_ body: () throws(TokenCacheStorageError) -> T) throws(TokenCacheStorageError) -> T {
        let directory = url.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: directory.path) {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw TokenCacheStorageError(.fileSystem, "The token cache lock folder \(directory.path) could not be created: \(error.localizedDescription)")
            }
        }
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw TokenCacheStorageError(.fileSystem, "The token cache lock file \(url.path) could not be opened: \(String(cString: strerror(errno))).")
        }
        defer { close(fd) }  // closing the descriptor releases the lock
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EINTR else {
                throw TokenCacheStorageError(.fileSystem, "The token cache lock \(url.path) could not be taken: \(String(cString: strerror(failure))).")
            }
            guard Date() < deadline else {
                throw TokenCacheStorageError(
                    .timedOut, "Another process held the token cache lock \(url.path) for more than \(Int(timeout)) seconds; try again.")
            }
            usleep(10_000)
        }
        return try body()
    }
}
