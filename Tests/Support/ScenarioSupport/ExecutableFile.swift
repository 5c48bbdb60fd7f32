public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a script that a test then starts, without the race that makes `execve` fail with
/// `ETXTBSY`: Foundation's writers open files without `O_CLOEXEC`, and in a test process that
/// starts programs from other threads all the time, a program started meanwhile inherits the
/// open, writable file and keeps it across its own exec (a server can keep it for the whole
/// run). The script then cannot be executed ("Text file busy"). Here the file is only ever open
/// with `O_CLOEXEC`, and closed before this returns.
public enum ExecutableFile {
    public static func write(_ text: String, to path: String, mode: mode_t = 0o755) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, bytes.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            written += count
        }
        guard fchmod(descriptor, mode) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
