import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A socket descriptor of the virtual authenticator: the listening socket, a connection, or an
/// end of the stop signal's pair. The C calls of the authenticator are here and only here.
struct SocketDescriptor: RawRepresentable, Hashable, Sendable {
    let rawValue: Int32
    init(rawValue: Int32) { self.rawValue = rawValue }

    /// A listening `AF_UNIX` `SOCK_STREAM` socket bound to `path` (`socket`, `bind`, `listen`).
    static func listening(at path: String) throws(VirtualAuthenticatorError) -> SocketDescriptor {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw VirtualAuthenticatorError(
                .socketUnavailable, "The socket path \(path) is longer than a Unix socket address holds (107 bytes).")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: pathBytes)
            buffer[pathBytes.count] = 0
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw VirtualAuthenticatorError(.socketUnavailable, "Could not create a Unix socket.", errno: errno)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let error = errno
            _ = Glibc.close(descriptor)
            throw VirtualAuthenticatorError(
                .socketUnavailable, "Could not create the socket at \(path) (it may exist already).", errno: error)
        }
        guard listen(descriptor, 16) == 0 else {
            let error = errno
            _ = Glibc.close(descriptor)
            unlink(path)
            throw VirtualAuthenticatorError(.socketUnavailable, "Could not listen on \(path).", errno: error)
        }
        return SocketDescriptor(rawValue: descriptor)
    }

    /// A connected pair (`socketpair`), for the stop signal.
    static func pair() throws(VirtualAuthenticatorError) -> (SocketDescriptor, SocketDescriptor) {
        var descriptors: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0 else {
            throw VirtualAuthenticatorError(.socketUnavailable, "Could not create a socket pair.", errno: errno)
        }
        return (SocketDescriptor(rawValue: descriptors[0]), SocketDescriptor(rawValue: descriptors[1]))
    }

    /// A new connection (`accept`, then `FD_CLOEXEC`), `nil` when none could be taken.
    func accept() -> SocketDescriptor? {
        let descriptor = Glibc.accept(rawValue, nil, nil)
        guard descriptor >= 0 else { return nil }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return SocketDescriptor(rawValue: descriptor)
    }

    enum Readiness { case readable, timedOut, stopped }

    /// Waits (`poll`) until this descriptor is readable (or at its end), `stop` is readable, or
    /// the timeout passes (-1: none).
    func waitReadable(orStop stop: SocketDescriptor, timeoutMilliseconds: Int32) -> Readiness {
        var descriptors = [
            pollfd(fd: stop.rawValue, events: Int16(POLLIN), revents: 0),
            pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let result = poll(&descriptors, 2, timeoutMilliseconds)
            if result < 0, errno == EINTR { continue }
            if result < 0 || descriptors[0].revents != 0 { return .stopped }
            return result == 0 ? .timedOut : .readable
        }
    }

    /// Reads exactly `count` bytes (`recv` with `MSG_WAITALL`); `nil` at the end of the stream
    /// or on an error.
    func read(count: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let received = buffer.withUnsafeMutableBytes {
                recv(rawValue, $0.baseAddress! + filled, count - filled, Int32(MSG_WAITALL))
            }
            if received < 0, errno == EINTR { continue }
            guard received > 0 else { return nil }
            filled += received
        }
        return buffer
    }

    /// Writes all of `bytes` (`send`, no SIGPIPE); false when the peer is gone.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let written = bytes.withUnsafeBytes {
                send(rawValue, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            sent += written
        }
        return true
    }

    /// Makes the other end of a pair readable for good.
    func signal() { write([1]) }

    /// Ends both directions (`shutdown`): a thread blocked on this socket wakes.
    func shutdown() { _ = Glibc.shutdown(rawValue, Int32(SHUT_RDWR)) }

    func close() { _ = Glibc.close(rawValue) }
}
