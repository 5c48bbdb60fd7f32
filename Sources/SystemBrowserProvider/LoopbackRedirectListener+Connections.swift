import CGLib
import GLibSupport

/// Connections: each accepted one waits (``WaitingConnection``) until its request line is there,
/// then goes to libsoup with that line remembered by the peer's address, so that a request libsoup
/// answers itself (400) can still be recognised as the callback.
extension LoopbackRedirectListener {
    /// A new connection: wait (without reading) until its request line is there.
    func accept(_ connection: UnsafeMutablePointer<GSocketConnection>) {
        let waiting = WaitingConnection(connection)
        self.waiting[ObjectIdentifier(waiting)] = waiting
        waiting.watch { [weak self, waiting] line in
            guard let self else { return }
            self.waiting[ObjectIdentifier(waiting)] = nil
            guard let line, let server = self.server else {
                waiting.close()
                return
            }
            self.handOver(waiting, requestLine: line, to: server)
        }
    }

    /// Hands the connection to libsoup (`soup_server_accept_iostream`), which reads the request.
    private func handOver(
        _ waiting: WaitingConnection, requestLine: String, to server: GObjectRef<UnsafeMutablePointer<SoupServer>>
    ) {
        guard let connection = waiting.connection?.pointer else { return }
        let local = g_socket_connection_get_local_address(connection, nil).map(GObjectRef.init(adopting:))
        let remote = g_socket_connection_get_remote_address(connection, nil).map(GObjectRef.init(adopting:))
        if let remote, let key = Self.peerKey(remote.pointer) { requestLines[key] = requestLine }
        let accepted = (try? withGError {
            soup_server_accept_iostream(server.pointer, wvh_io_stream(connection), local?.pointer, remote?.pointer, $0)
        }) ?? 0
        if accepted == 0 {
            if let remote, let key = Self.peerKey(remote.pointer) { requestLines[key] = nil }
            waiting.close()
            endGraceIfAnswered()
        }
        waiting.release()
    }

    /// libsoup is done with a request: a 400 it gave itself to the callback path ends the session.
    func finished(_ message: OpaquePointer) {
        let unanswered = answered.remove(UInt(bitPattern: UnsafeMutableRawPointer(message))) == nil
        let line = Self.peerKey(of: message).flatMap { requestLines.removeValue(forKey: $0) }
        defer { endGraceIfAnswered() }
        guard unanswered, soup_server_message_get_status(message) == 400, let callbackPath, let line,
            Self.path(ofRequestLine: line) == callbackPath, hasOwnHost(message)
        else { return }
        onMalformedRequest?()
    }

    /// libsoup gave up on a request (the peer went away): nothing to answer any more.
    func aborted(_ message: OpaquePointer) {
        answered.remove(UInt(bitPattern: UnsafeMutableRawPointer(message)))
        if let key = Self.peerKey(of: message) { requestLines[key] = nil }
        endGraceIfAnswered()
    }

    /// `address:port` of a message's peer.
    private static func peerKey(of message: OpaquePointer) -> String? {
        soup_server_message_get_remote_address(message).flatMap { peerKey($0) }
    }

    private static func peerKey(_ address: UnsafeMutablePointer<GSocketAddress>) -> String? {
        guard wvh_is_inet_socket_address(address) != 0 else { return nil }
        let inet = wvh_inet_socket_address(address)
        guard let text = g_inet_address_to_string(g_inet_socket_address_get_address(inet)) else { return nil }
        defer { g_free(text) }
        return "\(String(cString: text)):\(g_inet_socket_address_get_port(inet))"
    }
}
