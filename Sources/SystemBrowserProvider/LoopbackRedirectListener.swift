import CWebKitGTK
import Foundation
import GLibSupport
import WebviewHost

/// The loopback HTTP listener a system-browser sign-in ends at (RFC 8252 section 7.3): a libsoup
/// `SoupServer` on the GLib main context, bound to 127.0.0.1 and/or ::1 only, never to all interfaces.
///
/// Every request reaches ``onRequest`` on the main thread; ``close()`` closes the listening
/// sockets at once (the port then refuses connections) while an answer already being written
/// still reaches the browser. Main thread only.
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
        case redirect(URL)
    }

    /// Called for every request, on the main thread.
    var onRequest: ((Request) -> Answer)?
    /// Called when libsoup answered a request 400 itself, before ``onRequest`` could see it
    /// (a request target it cannot parse, such as a callback with a `%zz` escape).
    var onMalformedRequest: (() -> Void)?

    /// The port the listener is bound to.
    let port: Int

    private var server: UnsafeMutablePointer<SoupServer>?
    private let signals = SignalConnections()
    /// The messages ``onRequest`` answered, until libsoup reports them finished.
    private var answered = Set<UInt>()

    /// Binds a listener on `host` (`127.0.0.1`, `[::1]`/`::1`, or `localhost` for both) and `port`
    /// (0: the kernel picks one).
    ///
    /// - Throws: `redirectListenerFailed` when the port is busy or cannot be bound; `invalidParameters`
    ///   for a host that is not loopback.
    init(host: String, port: Int) throws(WebAuthError) {
        let options: SoupServerListenOptions
        switch host.lowercased() {
        case "127.0.0.1": options = SOUP_SERVER_LISTEN_IPV4_ONLY
        case "[::1]", "::1": options = SOUP_SERVER_LISTEN_IPV6_ONLY
        case "localhost": options = SoupServerListenOptions(rawValue: 0)
        default:
            throw WebAuthError(
                .invalidParameters,
                "The redirect host \"\(host)\" is not a loopback address; use http://127.0.0.1 or http://[::1].")
        }
        guard (0...65535).contains(port) else {
            throw WebAuthError(.invalidParameters, "The redirect URI's port \(port) is not a valid TCP port.")
        }
        let server = wvh_soup_server_new()!
        do {
            _ = try withGError { soup_server_listen_local(server, guint(port), options, $0) }
        } catch {
            g_object_unref(server)
            let busy = error.isIOError(G_IO_ERROR_ADDRESS_IN_USE)
            throw WebAuthError(
                .redirectListenerFailed,
                busy
                    ? "Port \(port) on \(host) is already in use by another program, so the sign-in cannot "
                        + "receive its redirect. Close the program using it, or register a redirect URI without a port."
                    : "The sign-in could not listen for its redirect on \(host):\(port): \(error.message).",
                underlyingError: error)
        }
        self.server = server
        self.port = port != 0 ? port : boundPort(of: server)
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
            let unanswered = self.answered.remove(UInt(bitPattern: message)) == nil
            if unanswered, soup_server_message_get_status(OpaquePointer(message)) == 400 {
                self.onMalformedRequest?()
            }
        })
    }

    isolated deinit {
        close()
    }

    /// Whether the listener still accepts connections.
    var isOpen: Bool { server != nil }

    /// Closes the listening sockets now (`soup_server_disconnect`), so the port refuses
    /// connections. Calling it again does nothing.
    func close() {
        guard let server else { return }
        self.server = nil
        onRequest = nil
        onMalformedRequest = nil
        signals.disconnectAll()
        soup_server_remove_handler(server, nil)
        soup_server_disconnect(server)
        // Responses already queued are written by the connections, which hold their own references.
        g_object_unref(server)
    }

    private func respond(to message: OpaquePointer) {
        answered.insert(UInt(bitPattern: UnsafeMutableRawPointer(message)))
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
        let answer =
            onRequest?(Request(method: method, path: path.isEmpty ? "/" : path, formEncodedParameters: parameters))
            ?? .page(status: 404, html: "")
        let headers = soup_server_message_get_response_headers(message)
        // The callback URL carries the code: keep it out of caches and Referer headers.
        soup_message_headers_replace(headers, "Cache-Control", "no-store")
        soup_message_headers_replace(headers, "Referrer-Policy", "no-referrer")
        switch answer {
        case .page(let status, let html):
            soup_server_message_set_status(message, guint(status), nil)
            let utf8 = Array(html.utf8)
            utf8.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    soup_server_message_set_response(
                        message, "text/html; charset=utf-8", SOUP_MEMORY_COPY, chars.baseAddress, gsize(chars.count))
                }
            }
        case .redirect(let url):
            soup_server_message_set_redirect(message, 303, url.absoluteString)
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
