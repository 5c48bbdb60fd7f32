public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Keeps the cache in a file, UNENCRYPTED: anyone who can read the person's files (a backup, a
/// process of theirs) can read the refresh tokens. Choose it explicitly, for systems without a
/// Secret Service (a server, a container); ``SecretServiceTokenCacheStorage`` is the default.
///
/// The file is created with mode 0600 in a folder created with mode 0700, and replaced
/// atomically (a new file, then `rename(2)`); writers take a `flock(2)` lock on `<file>.lock`.
public struct FileTokenCacheStorage: TokenCacheStorage {
    /// The cache file.
    public let fileURL: URL
    /// The writer lock beside it.
    public let lockFile: TokenCacheLockFile

    /// A store at `fileURL` (its folder is created 0700 when missing).
    public init(fileURL: URL, lockTimeout: TimeInterval = 10) {
        self.fileURL = fileURL
        lockFile = TokenCacheLockFile(url: fileURL.appendingPathExtension("lock"), timeout: lockTimeout)
    }

    /// The app's store: `$XDG_DATA_HOME/<applicationID>/<fileName>` (`~/.local/share` when
    /// `XDG_DATA_HOME` is unset), like the embedded web view's data.
    ///
    /// - Throws: `invalidConfiguration` for an application ID that is empty, `.` or `..`, or holds a `/`.
    public init(applicationID: String, fileName: String = "msal-token-cache.json") throws(TokenCacheStorageError) {
        guard !applicationID.isEmpty, applicationID != ".", applicationID != "..", !applicationID.contains("/"),
            !fileName.isEmpty, !fileName.contains("/"), fileName != ".", fileName != ".."
        else {
            throw TokenCacheStorageError(
                .invalidConfiguration,
                "The application ID and file name of a file token cache must be plain names (not empty, no '/'); use e.g. \"org.example.MyApp\".")
        }
        let environment = ProcessInfo.processInfo.environment
        let dataHome: URL
        if let value = environment["XDG_DATA_HOME"], value.hasPrefix("/") {
            dataHome = URL(fileURLWithPath: value)
        } else {
            dataHome = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".local/share")
        }
        self.init(fileURL: dataHome.appendingPathComponent(applicationID).appendingPathComponent(fileName))
    }

    public func load() throws(TokenCacheStorageError) -> Data? {
        let fd = open(fileURL.path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw failure("read")
        }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read")
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    public func save(_ data: Data) throws(TokenCacheStorageError) {
        let directory = fileURL.deletingLastPathComponent()
        if mkdir(directory.path, 0o700) != 0, errno != EEXIST {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw TokenCacheStorageError(.fileSystem, "The token cache folder \(directory.path) could not be created: \(error.localizedDescription)")
            }
        }
        // A new file beside the old one, renamed over it: a reader never sees half a cache.
        let temporary = directory.appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("write") }
        var written = 0
        let ok: Bool = data.withUnsafeBytes { bytes in
            while written < bytes.count {
                let count = write(fd, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += count
            }
            return fsync(fd) == 0
        }
        let failed = ok ? nil : failure("write")
        close(fd)
        if let failed {
            unlink(temporary.path)
            throw failed
        }
        guard rename(temporary.path, fileURL.path) == 0 else {
            let error = failure("write")
            unlink(temporary.path)
            throw error
        }
    }

    public func withWriterLock<T>(_ body: () throws(TokenCacheStorageError) -> T) throws(TokenCacheStorageError) -> T {
        try lockFile.withLock(body)
    }

    public func refreshLock(for key: String) -> TokenCacheLockFile? {
        lockFile.sibling(for: key)
    }

    private func failure(_ verb: String) -> TokenCacheStorageError {
        TokenCacheStorageError(.fileSystem, "The token cache file \(fileURL.path) could not be \(verb == "read" ? "read" : "written"): \(String(cString: strerror(errno))).")
    }
}
