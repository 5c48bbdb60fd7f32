import CGLib
import Foundation
import GLibSupport

/// A connection accepted but not yet handed to libsoup: waits until its request line (up to the
/// first line feed, or ``LoopbackRedirectListener/requestLineLimit`` bytes) can be peeked.
///
/// Nothing is read: `recv(MSG_PEEK)` leaves the bytes for libsoup, and `SO_RCVLOWAT` makes the
/// socket readable again only when more bytes than already peeked have arrived, so a slow sender
/// costs one wake-up per byte and no busy loop. Main thread only.
@MainActor
final class WaitingConnection {
    /// The connection, until ``close()`` or ``release()``.
    private(set) var connection: GObjectRef<UnsafeMutablePointer<GSocketConnection>>?
    private var source: GSourceRef?
    private var onLine: ((String?) -> Void)?
    /// How many bytes the last peek saw.
    private var peeked = 0

    init(_ connection: UnsafeMutablePointer<GSocketConnection>) {
        self.connection = GObjectRef(retaining: connection)
    }

    /// Calls `onLine` once with the request line, or `nil` when the peer closed first.
    func watch(_ onLine: @escaping (String?) -> Void) {
        guard let connection else { return }
        self.onLine = onLine
        let socket = g_socket_connection_get_socket(connection.pointer)!
        let source = GSourceRef(
            adopting: g_socket_create_source(socket, GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue), nil)!)
        g_source_set_callback(
            source.pointer, SourceCallback.socketSourceFunction,
            SourceCallback.userData { [weak self] in self?.readable() ?? false }, SourceCallback.destroyNotify)
        source.attach()
        self.source = source
    }

    /// Peeks now, without waiting for the socket to be reported readable.
    func checkNow() {
        guard onLine != nil, readable() else { return }
    }

    /// Peeks; returns whether to keep waiting.
    private func readable() -> Bool {
        guard let connection else { return false }
        let socket = g_socket_connection_get_socket(connection.pointer)!
        let limit = LoopbackRedirectListener.requestLineLimit
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = recv(g_socket_get_fd(socket), &buffer, limit, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count < 0, errno == EAGAIN || errno == EINTR { return true }
        // Nothing (the peer closed), or no more than last time: with SO_RCVLOWAT above what was
        // peeked, the socket is readable without new bytes only when the peer stopped sending
        // (a half-closed connection with an unfinished line): drop it rather than spin.
        guard count > 0, count > peeked else {
            finish(nil)
            return false
        }
        peeked = count
        let bytes = buffer[..<count]
        if let newline = bytes.firstIndex(of: 0x0A) {
            var line = bytes[..<newline]
            if line.last == 0x0D { line = line.dropLast() }
            finish(String(decoding: line, as: UTF8.self))
            return false
        }
        if count >= limit {
            finish(String(decoding: bytes, as: UTF8.self))
            return false
        }
        // Readable again only once more than `count` bytes are waiting.
        g_socket_set_option(socket, SOL_SOCKET, SO_RCVLOWAT, gint(count + 1), nil)
        return true
    }

    private func finish(_ line: String?) {
        source = nil  // destroyed: the socket is watched no more
        if line != nil, let connection {
            g_socket_set_option(g_socket_connection_get_socket(connection.pointer), SOL_SOCKET, SO_RCVLOWAT, 1, nil)
        }
        let onLine = self.onLine
        self.onLine = nil
        onLine?(line)
    }

    /// Closes the connection (the peer sees it closed) and drops it.
    func close() {
        source = nil
        onLine = nil
        guard let connection else { return }
        self.connection = nil
        g_io_stream_close(wvh_io_stream(connection.pointer), nil, nil)
    }

    /// Drops this object's reference once libsoup holds its own.
    func release() {
        connection = nil
    }
}
