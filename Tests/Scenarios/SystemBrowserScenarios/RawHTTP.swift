import Foundation

/// A hostile local process talking to the loopback listener over real sockets: raw bytes out,
/// the status line back. Blocking calls: use it off the main thread (the listener runs there).
enum RawHTTP {
    /// A connected TCP socket to `host` (`127.0.0.1` or `::1`) and `port`, with receive and send
    /// time limits; `nil` when the connection is refused.
    static func connect(host: String = "127.0.0.1", port: Int, timeout: Double = 5) -> Int32? {
        let ipv6 = host.contains(":")
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var result: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else {
            Glibc.close(fd)
            return nil
        }
        return fd
    }

    /// Sends all of `bytes`; false when the peer stopped taking them.
    @discardableResult
    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Reads until the peer closes (or the time limit); returns the HTTP status and the body text.
    static func readResponse(_ fd: Int32) -> (status: Int?, text: String) {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data += buffer[..<count]
        }
        let text = String(decoding: data, as: UTF8.self)
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
        return (status, text)
    }

    /// One request on a fresh connection; the status (`nil`: refused, reset or no answer).
    static func exchange(host: String = "127.0.0.1", port: Int, _ request: String) -> Int? {
        exchange(host: host, port: port, Array(request.utf8)).status
    }

    static func exchange(host: String = "127.0.0.1", port: Int, _ request: [UInt8]) -> (status: Int?, text: String) {
        guard let fd = connect(host: host, port: port) else { return (nil, "") }
        defer { Glibc.close(fd) }
        send(fd, request)
        return readResponse(fd)
    }
}
