import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// The loopback HTTP listener a system-browser sign-in ends at (RFC 8252 section 7.3): a libsoup
/// `SoupServer` on the GLib main context, fed by a `GSocketService` bound to 127.0.0.1 and/or ::1
/// only, never to all interfaces.
///
/// Every request whose `Host` is the listener's own (``expectedHosts``) reaches ``onRequest`` on
/// the main thread; any other is answered 421 and ignored (DNS rebinding: a page on another name
/// that resolves to 127.0.0.1 cannot talk to the listener). Every answer closes its connection.
/// ``close()`` closes the listening sockets at once (the port then refuses connections) and
/// connections that have not sent a request line; requests already read are answered ("already
/// ended", or the completion page already queued) for at most ``closingGrace``, then every
/// connection is closed. Main thread only.
///
/// The listener accepts connections itself and hands each one to libsoup
/// (`soup_server_accept_iostream`) once its request line has arrived, which it reads with
/// `MSG_PEEK` (the bytes stay for libsoup). That line is the only thing parsed by hand: when
/// libsoup refuses a request with 400 before the listener sees it (a target it cannot parse, such
/// as `/callback?code=%zz`), its raw path says whether it was the callback (which ends the
/// session) or anything else (which is ignored).
@MainActor
final class LoopbackRedirectListener {
    /// One request the listener received.
    struct Request {
        /// `GET`, `POST`...
        var method: String
        /// The path as sent, still percent-encoded.
        var path: String
        /// The query as sent, still percent-encoded, or the body of an
        /// `application/x-www-form-urlencoded` POST.
        var formEncodedParameters: String?
    }

    /// What to answer a request with.
    enum Answer {
        case page(status: UInt32, html: String)
        /// 303 See Other (the app's completion page).
        case redirect(URL)
        /// 302 Found (the first hop to the authorization URL).
        case found(URL)
    }

    /// Called for every request with the listener's own `Host`, on the main thread.
    var onRequest: ((Request) -> Answer)?
    /// Called when libsoup answered a request to ``callbackPath`` (with the listener's own
    /// `Host`) 400 itself, before ``onRequest`` could see it (such as a callback with a `%zz` escape).
    var onMalformedRequest: (() -> Void)?
    /// The path (percent-encoded, as sent) whose malformed requests end the session; `nil`: none.
    var callbackPath: String?

    /// The port the listener is bound to.
    let port: Int
    /// The `Host` header values the listener answers (`127.0.0.1:<port>`, `[::1]:<port>`,
    /// `localhost:<port>`, per the redirect URI's host; without the port too when it is 80).
    let expectedHosts: Set<String>
    /// The host as the redirect URI names it (`127.0.0.1`, `[::1]`, `localhost`).
    let host: String

    private var server: UnsafeMutablePointer<SoupServer>?
    private var service: UnsafeMutablePointer<GSocketService>?
    private var incomingHandler: gulong = 0
    private let signals = SignalConnections()
    /// The messages ``onRequest`` answered, until libsoup reports them finished.
    private var answered = Set<UInt>()
    /// Connections whose request line has not fully arrived yet.
    private var waiting: [ObjectIdentifier: WaitingConnection] = [:]
    /// The request line of each connection handed to libsoup, by the peer's address.
    private var requestLines: [String: String] = [:]

    /// The longest request line read by hand; a longer one is handed to libsoup as it is.
    static let requestLineLimit = 8192
    /// How long, after ``close()``, requests already read may still be answered.
    static let closingGrace: Duration = .seconds(2)
    /// Whether ``close()`` ran: new requests get the "already ended" page.
    private var closing = false

    /// Binds a listener on `host` (`127.0.0.1`, `[::1]`/`::1`, or `localhost` for both) and `port`
    /// (0: the kernel picks one).
    ///
    /// - Throws: `redirectListenerFailed` when the port is busy or cannot be bound; `invalidParameters`
    ///   for a host that is not loopback.
    init(host: String, port: Int) throws(WebAuthError) {
        let addresses: [String]
        let hostName: String
        switch host.lowercased() {
        case "127.0.0.1": addresses = ["127.0.0.1"]; hostName = "127.0.0.1"
        case "[::1]", "::1": addresses = ["::1"]; hostName = "[::1]"
        case "localhost": addresses = ["127.0.0.1", "::1"]; hostName = "localhost"
        default:
            throw WebAuthError(
                .invalidParameters,
                "The redirect host \"\(host)\" is not a loopback address; use http://127.0.0.1 or http://[::1].")
        }
        guard (0...65535).contains(port) else {
            throw WebAuthError(.invalidParameters, "The redirect URI's port \(port) is not a valid TCP port.")
        }
        let service = g_socket_service_new()!
        // GIO's default backlog is 10: a local process opening connections in a burst would make
        // the browser's own connection wait for SYN retransmits (a second or more each).
        g_socket_listener_set_backlog(wvh_socket_listener(service), gint(SOMAXCONN))
        var boundPort = port
        for (index, address) in addresses.enumerated() {
            let socketAddress = g_inet_socket_address_new_from_string(address, guint(boundPort))!
            var effective: UnsafeMutablePointer<GSocketAddress>?
            do {
                _ = try withGError {
                    g_socket_listener_add_address(
                        wvh_socket_listener(service), socketAddress, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                        nil, &effective, $0)
                }
            } catch {
                g_object_unref(socketAddress)
                // localhost: ::1 is a bonus where IPv6 is off; 127.0.0.1 is required.
                if index > 0 { continue }
                g_socket_listener_close(wvh_socket_listener(service))
                g_object_unref(service)
                let busy = error.isIOError(G_IO_ERROR_ADDRESS_IN_USE)
                throw WebAuthError(
                    .redirectListenerFailed,
                    busy
                        ? "Port \(port) on \(host) is already in use by another program, so the sign-in cannot "
                            + "receive its redirect. Close the program using it, or register a redirect URI without a port."
                        : "The sign-in could not listen for its redirect on \(host):\(port): \(error.message).",
                    underlyingError: error)
            }
            g_object_unref(socketAddress)
            if let effective {
                if boundPort == 0 {
                    boundPort = Int(g_inet_socket_address_get_port(wvh_inet_socket_address(effective)))
                }
                g_object_unref(effective)
            }
        }
        self.port = boundPort
        self.host = hostName
        var hosts: Set<String> = ["\(hostName):\(boundPort)"]
        if boundPort == 80 { hosts.insert(hostName) }
        self.expectedHosts = hosts
        self.service = service
        let server = wvh_soup_server_new()!
        self.server = server
        let box = Unmanaged.passRetained(RequestBox(self)).toOpaque()
        soup_server_add_handler(
            server, nil,
            { _, message, _, _, data in
                guard let message, let data else { return }
                let box = Unmanaged<RequestBox>.fromOpaque(data).takeUnretainedValue()
                MainActor.assumeIsolated { [message = MessagePointer(message)] in
                    box.listener?.respond(to: message.pointer)
                }
            },
            box,
            { data in
                if let data { Unmanaged<RequestBox>.fromOpaque(data).release() }
            })
        signals.connect(server, "request-finished", .pointer { [weak self] message in
            guard let self, let message else { return }
            self.finished(OpaquePointer(message))
        })
        signals.connect(server, "request-aborted", .pointer { [weak self] message in
            guard let self, let message else { return }
            self.answered.remove(UInt(bitPattern: message))
            if let key = Self.peerKey(of: OpaquePointer(message)) { self.requestLines[key] = nil }
        })
        // `incoming`: gboolean (*)(GSocketService *, GSocketConnection *, GObject *, gpointer).
        let incoming: @convention(c) (gpointer?, gpointer?, gpointer?, gpointer?) -> gboolean = { _, connection, _, data in
            guard let connection, let data else { return 0 }
            let box = Unmanaged<RequestBox>.fromOpaque(data).takeUnretainedValue()
            MainActor.assumeIsolated { [connection = MessagePointer(OpaquePointer(connection))] in
                box.listener?.accept(connection.pointer)
            }
            return 1
        }
        incomingHandler = g_signal_connect_data(
            service, "incoming", unsafeBitCast(incoming, to: GCallback.self),
            Unmanaged.passRetained(RequestBox(self)).toOpaque(),
            { data, _ in
                if let data { Unmanaged<RequestBox>.fromOpaque(data).release() }
            }, GConnectFlags(rawValue: 0))
        g_socket_service_start(service)
    }

    isolated deinit {
        // Nothing may keep a deinitializing listener: every connection closes now.
        close(answeringPending: false)
    }

    /// Whether the listener still accepts connections.
    var isOpen: Bool { service != nil }

    /// Closes the listening sockets now, so the port refuses connections, and every connection
    /// that has not sent its request line. Requests already read are answered "already ended"
    /// (or with the page already queued) for at most ``closingGrace``; then every connection is
    /// closed and the server released. Calling it again does nothing.
    func close() {
        close(answeringPending: true)
    }

    private func close(answeringPending: Bool) {
        guard let service else { return disconnect() }
        self.service = nil
        closing = true
        onRequest = nil
        onMalformedRequest = nil
        g_signal_handler_disconnect(service, incomingHandler)
        g_socket_service_stop(service)
        g_socket_listener_close(wvh_socket_listener(service))
        g_object_unref(service)
        // A request line that already arrived is answered ("already ended"); the rest are closed.
        if answeringPending {
            for connection in Array(waiting.values) { connection.checkNow() }
        }
        for connection in waiting.values { connection.close() }
        waiting.removeAll()
        guard answeringPending, !requestLines.isEmpty else { return disconnect() }
        // This task keeps the listener until its last answers are written (request-finished
        // removes them), or the grace ends.
        Task { @MainActor [self] in
            let deadline = ContinuousClock.now + Self.closingGrace
            while !requestLines.isEmpty, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            disconnect()
        }
    }

    /// Closes every connection libsoup holds and releases the server. Calling it again does nothing.
    private func disconnect() {
        guard let server else { return }
        self.server = nil
        requestLines.removeAll()
        signals.disconnectAll()
        soup_server_remove_handler(server, nil)
        soup_server_disconnect(server)
        g_object_unref(server)
    }

    // MARK: - Connections

    /// A new connection: wait (without reading) until its request line is there.
    private func accept(_ connection: OpaquePointer) {
        let waiting = WaitingConnection(UnsafeMutablePointer(connection))
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

    private func handOver(
        _ waiting: WaitingConnection, requestLine: String, to server: UnsafeMutablePointer<SoupServer>
    ) {
        let connection = waiting.connection
        let local = g_socket_connection_get_local_address(connection, nil)
        let remote = g_socket_connection_get_remote_address(connection, nil)
        defer {
            if let local { g_object_unref(local) }
            if let remote { g_object_unref(remote) }
        }
        if let remote, let key = Self.peerKey(remote) { requestLines[key] = requestLine }
        let accepted = (try? withGError {
            soup_server_accept_iostream(server, wvh_io_stream(connection), local, remote, $0)
        }) ?? 0
        if accepted == 0 {
            if let remote, let key = Self.peerKey(remote) { requestLines[key] = nil }
            waiting.close()
        }
        waiting.release()
    }

    /// libsoup is done with a request: a 400 it gave itself to the callback path ends the session.
    private func finished(_ message: OpaquePointer) {
        let unanswered = answered.remove(UInt(bitPattern: UnsafeMutableRawPointer(message))) == nil
        let line = Self.peerKey(of: message).flatMap { requestLines.removeValue(forKey: $0) }
        guard unanswered, soup_server_message_get_status(message) == 400, let callbackPath, let line,
            Self.path(ofRequestLine: line) == callbackPath, hasOwnHost(message)
        else { return }
        onMalformedRequest?()
    }

    private func hasOwnHost(_ message: OpaquePointer) -> Bool {
        let headers = soup_server_message_get_request_headers(message)
        guard let value = soup_message_headers_get_one(headers, "Host") else { return false }
        return expectedHosts.contains(String(cString: value).lowercased())
    }

    /// The path of an HTTP request line (`GET /callback?code=x HTTP/1.1`), as sent: the target up
    /// to `?` or `#`, the scheme and authority removed from an absolute-form target. `nil` when the
    /// line has no target.
    static func path(ofRequestLine line: String) -> String? {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count >= 2 else { return nil }
        var target = Substring(parts[1])
        if let scheme = target.range(of: "://"), target[..<scheme.lowerBound].allSatisfy(\.isLetter) {
            let authority = target[scheme.upperBound...]
            target = authority.firstIndex(where: { "/?#".contains($0) }).map { authority[$0...] } ?? "/"
        }
        let end = target.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? target.endIndex
        let path = target[..<end]
        return path.isEmpty ? "/" : String(path)
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

    private func respond(to message: OpaquePointer) {
        answered.insert(UInt(bitPattern: UnsafeMutableRawPointer(message)))
        let headers = soup_server_message_get_response_headers(message)
        // One request per connection: the request line of each is read before libsoup sees it.
        soup_message_headers_replace(headers, "Connection", "close")
        guard hasOwnHost(message) else {
            // Another name for this address (DNS rebinding) or none: not the browser coming back.
            soup_server_message_set_status(message, 421, nil)
            setPage(message, BrowserCompletionPage.misdirected)
            return
        }
        let method = soup_server_message_get_method(message).map { String(cString: $0) } ?? ""
        let uri = soup_server_message_get_uri(message)
        let path = g_uri_get_path(uri).map { String(cString: $0) } ?? "/"
        var parameters = g_uri_get_query(uri).map { String(cString: $0) }
        if method == "POST" {
            let contentType = soup_message_headers_get_content_type(
                soup_server_message_get_request_headers(message), nil
            ).map { String(cString: $0) }
            let body = soup_server_message_get_request_body(message)!
            let bytes = soup_message_body_flatten(body)!
            var size: gsize = 0
            let data = g_bytes_get_data(bytes, &size)
            let text = data.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(size)), as: UTF8.self) }
            g_bytes_unref(bytes)
            parameters = contentType?.lowercased() == "application/x-www-form-urlencoded" ? (text ?? "") : nil
        }
        let request = Request(method: method, path: path.isEmpty ? "/" : path, formEncodedParameters: parameters)
        let answer =
            closing
            ? .page(status: 410, html: BrowserCompletionPage.alreadyEnded)
            : onRequest?(request) ?? .page(status: 404, html: BrowserCompletionPage.notFound)
        // The callback URL carries the code: keep it out of caches and Referer headers.
        soup_message_headers_replace(headers, "Cache-Control", "no-store")
        soup_message_headers_replace(headers, "Referrer-Policy", "no-referrer")
        switch answer {
        case .page(let status, let html):
            soup_server_message_set_status(message, guint(status), nil)
            setPage(message, html)
        case .redirect(let url):
            soup_server_message_set_redirect(message, 303, url.absoluteString)
        case .found(let url):
            soup_server_message_set_redirect(message, 302, url.absoluteString)
        }
    }

    private func setPage(_ message: OpaquePointer, _ html: String) {
        let utf8 = Array(html.utf8)
        utf8.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                soup_server_message_set_response(
                    message, "text/html; charset=utf-8", SOUP_MEMORY_COPY, chars.baseAddress, gsize(chars.count))
            }
        }
    }
}

/// Finds the listener again from libsoup's user data; weak, so the server never keeps it alive.
private final class RequestBox {
    weak var listener: LoopbackRedirectListener?
    init(_ listener: LoopbackRedirectListener) { self.listener = listener }
}

/// A `SoupServerMessage *` handed to main-actor code on the main thread.
private struct MessagePointer: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

/// A connection accepted but not yet handed to libsoup: waits until its request line (up to the
/// first line feed, or ``LoopbackRedirectListener/requestLineLimit`` bytes) can be peeked.
///
/// Nothing is read: `recv(MSG_PEEK)` leaves the bytes for libsoup, and `SO_RCVLOWAT` makes the
/// socket readable again only when more bytes than already peeked have arrived, so a slow sender
/// costs one wake-up per byte and no busy loop.
@MainActor
private final class WaitingConnection {
    let connection: UnsafeMutablePointer<GSocketConnection>
    private var source: UnsafeMutablePointer<GSource>?
    private var onLine: ((String?) -> Void)?
    private var closed = false
    /// How many bytes the last peek saw.
    private var peeked = 0

    init(_ connection: UnsafeMutablePointer<GSocketConnection>) {
        g_object_ref(connection)
        self.connection = connection
    }

    /// Calls `onLine` once with the request line, or `nil` when the peer closed first.
    func watch(_ onLine: @escaping (String?) -> Void) {
        self.onLine = onLine
        let socket = g_socket_connection_get_socket(connection)!
        let source = g_socket_create_source(socket, GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue), nil)!
        let callback: @convention(c) (UnsafeMutablePointer<GSocket>?, GIOCondition, gpointer?) -> gboolean = { _, _, data in
            guard let data else { return 0 }
            let box = Unmanaged<WaitingBox>.fromOpaque(data).takeUnretainedValue()
            return MainActor.assumeIsolated { box.connection?.readable() ?? false } ? 1 : 0
        }
        g_source_set_callback(
            source, unsafeBitCast(callback, to: GSourceFunc.self), Unmanaged.passRetained(WaitingBox(self)).toOpaque(),
            { data in
                if let data { Unmanaged<WaitingBox>.fromOpaque(data).release() }
            })
        g_source_attach(source, nil)
        self.source = source
    }

    /// Peeks now, without waiting for the socket to be reported readable.
    func checkNow() {
        guard onLine != nil, readable() else { return }
    }

    /// Peeks; returns whether to keep waiting.
    private func readable() -> Bool {
        let socket = g_socket_connection_get_socket(connection)!
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
        stopWatching()
        if line != nil {
            g_socket_set_option(g_socket_connection_get_socket(connection), SOL_SOCKET, SO_RCVLOWAT, 1, nil)
        }
        let onLine = self.onLine
        self.onLine = nil
        onLine?(line)
    }

    private func stopWatching() {
        if let source {
            self.source = nil
            g_source_destroy(source)
            g_source_unref(source)
        }
    }

    /// Closes the connection (the peer sees it closed) and drops it.
    func close() {
        stopWatching()
        onLine = nil
        guard !closed else { return }
        closed = true
        g_io_stream_close(wvh_io_stream(connection), nil, nil)
        g_object_unref(connection)
    }

    /// Drops this object's reference once libsoup holds its own.
    func release() {
        guard !closed else { return }
        closed = true
        g_object_unref(connection)
    }
}

/// Finds a waiting connection again from the socket source's user data.
private final class WaitingBox {
    weak var connection: WaitingConnection?
    init(_ connection: WaitingConnection) { self.connection = connection }
}
