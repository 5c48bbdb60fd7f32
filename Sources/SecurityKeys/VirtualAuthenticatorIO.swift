internal import CFIDO2
internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#endif

/// libfido2's device I/O over a virtual authenticator's socket (`fido_dev_set_io_functions`): the
/// same CTAPHID reports a hidraw device reads and writes, 64 bytes each, without the report ID
/// byte libfido2 puts before each write.
package enum VirtualAuthenticatorIO {
    /// One opening: the connected socket.
    final class Connection {
        let descriptor: Int32
        init(descriptor: Int32) { self.descriptor = descriptor }
    }

    static var functions: fido_dev_io_t {
        fido_dev_io_t(open: open, close: close, read: read, write: write)
    }

    /// Sets these functions on `device` (a `fido_dev_t *` not opened yet), so that opening it with
    /// a socket's path reaches that virtual authenticator; whether libfido2 took them. For the
    /// benchmark's floor, which calls libfido2 itself.
    package static func install(on device: OpaquePointer) -> Bool {
        var io = functions
        return fido_dev_set_io_functions(device, &io) == FIDO_OK
    }

    private static let open: @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutableRawPointer? = { path in
        guard let path else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let length = strlen(path)
        guard length < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(descriptor)
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyMemory(from: UnsafeRawBufferPointer(start: path, count: length))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            return nil
        }
        return Unmanaged.passRetained(Connection(descriptor: descriptor)).toOpaque()
    }

    private static let close: @convention(c) (UnsafeMutableRawPointer?) -> Void = { handle in
        guard let handle else { return }
        let connection = Unmanaged<Connection>.fromOpaque(handle).takeRetainedValue()
        Glibc.close(connection.descriptor)
    }

    /// One report: waits up to `milliseconds` (-1: for ever) for it to begin, then reads all of it.
    private static let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int, Int32) -> Int32 = {
        handle, buffer, length, milliseconds in
        guard let handle, let buffer, length >= VirtualAuthenticatorSockets.reportLength else { return -1 }
        let descriptor = Unmanaged<Connection>.fromOpaque(handle).takeUnretainedValue().descriptor
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var ready: Int32
        repeat { ready = poll(&poller, 1, milliseconds) } while ready == -1 && errno == EINTR
        guard ready == 1 else { return -1 }
        var done = 0
        while done < VirtualAuthenticatorSockets.reportLength {
            let got = Glibc.read(descriptor, buffer + done, VirtualAuthenticatorSockets.reportLength - done)
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return -1 }
            done += got
        }
        return Int32(done)
    }

    /// One report; libfido2 passes it with the report ID byte first, which a socket does not carry.
    private static let write: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int) -> Int32 = {
        handle, buffer, length in
        guard let handle, let buffer else { return -1 }
        let descriptor = Unmanaged<Connection>.fromOpaque(handle).takeUnretainedValue().descriptor
        let skip = length == VirtualAuthenticatorSockets.reportLength + 1 ? 1 : 0
        guard length - skip == VirtualAuthenticatorSockets.reportLength else { return -1 }
        var done = 0
        while done < VirtualAuthenticatorSockets.reportLength {
            let wrote = send(descriptor, buffer + skip + done, VirtualAuthenticatorSockets.reportLength - done, Int32(MSG_NOSIGNAL))
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else { return -1 }
            done += wrote
        }
        return Int32(length)
    }
}
