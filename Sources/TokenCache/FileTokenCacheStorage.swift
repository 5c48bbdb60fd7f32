public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Keeps the cache in a file, UNENCRYPTED: anyone who can read the person's files (a backup, a
/// process of theirs) can read the refresh tokens. Choose it explicitly, for systems without a
/// Secret Service (a server, a container); ``SecretServiceTokenCacheStorage`` is the default.
///
/// The file is created with mode 0600 in a folder created with mode 0700, and replaced
/// atomically (a new file, then `rename(2)`); writers take a `flock(2)` lock on `<file>.lock`,
/// and a renewal one on `<file>.lock.<digest>` (``refreshLock(for:)``). A lock is not taken in
/// a folder the cache would be refused in (below).
///
/// Only the owner's file is read, as OpenSSH does for keys: a file that group or others can
/// write, or that another user owns, a folder that group or others can write, or that a user
/// other than you or root owns, and a folder above it that another user owns or that others can
/// write without the sticky bit, is refused with
/// ``TokenCacheStorageError/Code/unsafePermissions`` (the message names the path, its mode and
/// owner): anyone who could write there could have planted an account and its tokens. A file
/// others can only read (0644, as msal-python's file recipe leaves it) is read; the next save
/// makes it 0600. A file of yours refused only for its mode (0666, 0620), not a link, in a safe
/// folder, is replaced after the next interactive sign-in with a new 0600 file holding that
/// sign-in's tokens (its old content is never read; see ``replaceRefused(_:with:)``). A link,
/// another user's file or an unsafe folder stay refused: the person fixes them with `chmod 600`
/// (a folder with `chmod 700`), or deletes the file if they did not make it.
public struct FileTokenCacheStorage: TokenCacheStorage {
    /// The cache file.
    public let fileURL: URL
    /// The writer lock beside it.
    public let lockFile: TokenCacheLockFile

    /// A store at `fileURL` (its folder is created 0700 when missing).
    public init(fileURL: URL, lockTimeout: TimeInterval = 10) {
        self.fileURL = fileURL
        // The locks live beside the cache: their folder is held to the cache folder's rules.
        lockFile = TokenCacheLockFile(url: fileURL.appendingPathExtension("lock"), timeout: lockTimeout, checksFolder: true)
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

    /// The file's content, or nil when there is no file.
    ///
    /// - Throws: `unsafePermissions` for a file or folder someone else could have written (see
    ///   the type's documentation), `fileSystem` when it cannot be read.
    public func load() throws(TokenCacheStorageError) -> Data? {
        let fd = open(fileURL.path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw failure("read")
        }
        defer { close(fd) }
        try checkFolder()
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw failure("read") }
        do throws(TokenCacheStorageError) {
            try Self.check(status, path: fileURL.path, what: "file", fix: "chmod 600")
        } catch where error.code == .unsafePermissions && isOwnRegularFile() {
            // Yours, in a safe folder, not a link: only its mode is wrong, and a new file mends it.
            throw TokenCacheStorageError(error.code, error.message, canBeReplaced: true)
        }
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
        try checkFolder()
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

    /// Replaces a file refused only for its mode (``TokenCacheStorageError/canBeReplaced``) with a
    /// new 0600 file holding `data`, renamed over it; the old one is never read. Checks again that
    /// the folder is safe and the file is still yours and not a link.
    public func replaceRefused(_ refusal: TokenCacheStorageError, with data: Data) throws(TokenCacheStorageError) -> TokenCacheStorageError {
        guard refusal.canBeReplaced else { throw refusal }
        try checkFolder()
        var status = stat()
        if lstat(fileURL.path, &status) == 0, !isOwnRegularFile() { throw refusal }
        try save(data)
        return TokenCacheStorageError(
            .unsafeFileReplaced,
            "The token cache file \(fileURL.path) could be written by others, so what it held was not trusted; it was replaced with a new file "
                + "(mode 0600) holding this sign-in's tokens. Accounts only the old file held must sign in again.")
    }

    /// Whether the cache file is a regular file (not a link) this user owns.
    private func isOwnRegularFile() -> Bool {
        var status = stat()
        guard lstat(fileURL.path, &status) == 0 else { return false }
        return status.st_mode & S_IFMT == S_IFREG && status.st_uid == geteuid()
    }

    public func withWriterLock<T>(_ body: () throws(TokenCacheStorageError) -> T) throws(TokenCacheStorageError) -> T {
        try lockFile.withLock(body)
    }

    public func refreshLock(for key: String) -> TokenCacheLockFile? {
        lockFile.sibling(for: key)
    }

    private func checkFolder() throws(TokenCacheStorageError) {
        try Self.checkFolder(fileURL.deletingLastPathComponent())
    }

    /// Refuses `cacheFolder` when group or others can write it, or its owner is neither this user
    /// nor root; and, up to `/`, a folder above it that another user owns or that group or others
    /// can write without the sticky bit (through it the cache's folder could be swapped; `/tmp`
    /// is fine). The store's lock files live in the same folder and are checked the same way.
    static func checkFolder(_ cacheFolder: URL) throws(TokenCacheStorageError) {
        var folder = cacheFolder.standardizedFileURL
        var isCacheFolder = true
        while true {
            var status = stat()
            guard stat(folder.path, &status) == 0 else {
                throw TokenCacheStorageError(.fileSystem, "The token cache folder \(folder.path) could not be examined: \(String(cString: strerror(errno))).")
            }
            let sticky = status.st_mode & mode_t(S_ISVTX) != 0
            if isCacheFolder || !sticky {
                try Self.check(status, path: folder.path, what: isCacheFolder ? "folder" : "file's parent folder", fix: "chmod 700", rootMayOwn: true)
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path || folder.path == "/" { return }
            folder = parent
            isCacheFolder = false
        }
    }

    /// Refuses what `status` describes when group or others can write it, or another user owns it.
    static func check(_ status: stat, path: String, what: String, fix: String, rootMayOwn: Bool = false) throws(TokenCacheStorageError) {
        let mode = status.st_mode & 0o7777
        let me = geteuid()
        let modeText = modeText(mode)
        if status.st_uid != me && !(rootMayOwn && status.st_uid == 0) {
            throw TokenCacheStorageError(
                .unsafePermissions,
                "The token cache \(what) \(path) (mode \(modeText)) is owned by \(userName(status.st_uid)), not by this user (\(userName(me))), "
                    + "so the tokens in it cannot be trusted and it was not read; delete it (the next sign-in makes a new one) or use another path.")
        }
        if mode & 0o022 != 0 {
            let who = mode & 0o002 != 0 ? "any user" : "its group"
            throw TokenCacheStorageError(
                .unsafePermissions,
                "The token cache \(what) \(path) has mode \(modeText): \(who) can write to it, so the tokens in it cannot be trusted and it was not used; "
                    + "if only you made it, run `\(fix) \(path)`, else delete it (the next sign-in makes a new one).")
        }
    }

    /// `mode` as four octal digits (`0600`, `1777`).
    static func modeText(_ mode: mode_t) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return "\(String(cString: name)) (uid \(uid))"
    }

    private func failure(_ verb: String) -> TokenCacheStorageError {
        TokenCacheStorageError(.fileSystem, "The token cache file \(fileURL.path) could not be \(verb == "read" ? "read" : "written"): \(String(cString: strerror(errno))).")
    }
}
