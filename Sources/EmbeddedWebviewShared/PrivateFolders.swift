import CGLib
import Foundation

/// The persistent sign-in data (cookies with the single-sign-on session, local storage, caches)
/// is readable by its owner only: every folder the library creates is made `0700`, its own
/// folders that already exist are tightened, and every file and folder in them loses its group
/// and other permission bits.
///
/// The `0700` folder is what keeps other users out; tightening what WebKit writes inside it
/// (WebKit creates files `0644` and folders `0755`, or wider under a permissive umask) is a
/// second line, repeated whenever a session of the library's window ends.
enum PrivateFolders {
    /// Creates `folder` and any missing parent, each `0700` (`mkdir`), then tightens `folder` and
    /// everything in it. Parents that already exist are left as they are: they are not ours.
    static func prepare(_ folder: URL) {
        var path = ""
        for component in folder.standardizedFileURL.pathComponents.dropFirst() {
            path += "/" + component
            if mkdir(path, 0o700) != 0, errno != EEXIST { return }
        }
        tighten(folder)
    }

    /// Creates `file` empty with mode `0600` unless it exists, so that whoever opens it later
    /// (SQLite, for the cookie database and its journal) keeps that mode.
    static func createPrivateFile(_ file: URL) {
        let fd = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd >= 0 { close(fd) }
    }

    /// Removes the group and other bits of `folder` and of everything under it (`chmod`), never
    /// following a symbolic link.
    static func tighten(_ folder: URL) {
        var pending = [folder.path]
        while let path = pending.popLast() {
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            let type = status.st_mode & S_IFMT
            guard type == S_IFDIR || type == S_IFREG else { continue }
            let mode = status.st_mode & 0o7777
            if mode & 0o077 != 0 { _ = chmod(path, mode & 0o700) }
            if type == S_IFDIR, let names = try? FileManager.default.contentsOfDirectory(atPath: path) {
                pending += names.map { path + "/" + $0 }
            }
        }
    }
}
