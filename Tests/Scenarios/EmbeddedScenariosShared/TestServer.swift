import CGLib
import Foundation
import GLibSupport

/// A real HTTP(S) server on 127.0.0.1 (libsoup's `SoupServer`, in this process's main loop) that
/// answers from Swift routes and logs every request it receives.
@MainActor
final class TestServer {
    struct Request {
        var method: String
        var path: String
        var query: String?
        var cookie: String?
        var body: String
        var acceptLanguage: String? = nil
        var authorization: String? = nil
        var userAgent: String? = nil
        /// The client certificate's subject (`g_tls_certificate_get_subject_name`), `nil` for none.
        var clientSubject: String? = nil
        /// Whether the client certificate chains to the server's client CA (no `GTlsCertificateFlags`).
        var clientCertificateTrusted = false
    }

    struct Response {
        var status: UInt32 = 200
        var contentType = "text/html; charset=utf-8"
        var body = ""
        var headers: [(String, String)] = []
        /// Answer after this long (the message is paused meanwhile).
        var delay: Duration? = nil
        /// No answer: the connection is closed under the request (the client sees "Connection
        /// terminated unexpectedly"), as a proxy or server closing a kept-alive connection does.
        var dropsConnection = false

        static let dropped = Response(dropsConnection: true)
        static func html(_ body: String, delay: Duration? = nil) -> Response { Response(body: body, delay: delay) }
        static func redirect(_ location: String, headers: [(String, String)] = []) -> Response {
            Response(status: 302, body: "", headers: [("Location", location)] + headers)
        }
    }

    typealias Route = @MainActor (Request) -> Response

    private(set) var requests: [Request] = []
    private var routes: [String: Route] = [:]
    private var server: UnsafeMutablePointer<SoupServer>?
    private(set) var port: Int = 0
    let scheme: String

    /// Listens on 127.0.0.1 on a port the kernel chooses; HTTPS when `certificate` is given.
    init(certificate: UnsafeMutablePointer<GTlsCertificate>? = nil, clientCA: String? = nil) throws {
        scheme = certificate == nil ? "http" : "https"
        let server = wvh_soup_server_new_with_certificate(certificate)!
        self.server = server
        if let clientCA {
            let database = try withGError { g_tls_file_database_new(clientCA, $0) }
            soup_server_set_tls_database(server, database)
            g_object_unref(database.map { UnsafeMutableRawPointer($0) })
            soup_server_set_tls_auth_mode(server, G_TLS_AUTHENTICATION_REQUIRED)
            // libsoup refuses a client certificate with errors in the handshake unless the message's
            // `accept-certificate` says otherwise: accept every one, so that the route sees (and
            // reports) what it got; `clientCertificateTrusted` says whether it chains to `clientCA`.
            let acceptAll: @convention(c) (OpaquePointer?, OpaquePointer?, UInt32, gpointer?) -> gboolean = { _, _, _, _ in 1 }
            let started: @convention(c) (OpaquePointer?, OpaquePointer?, gpointer?) -> Void = { _, message, data in
                guard let message else { return }
                g_signal_connect_data(
                    UnsafeMutableRawPointer(message), "accept-certificate", unsafeBitCast(data, to: GCallback.self), nil, nil, GConnectFlags(0))
            }
            g_signal_connect_data(
                UnsafeMutableRawPointer(server), "request-started", unsafeBitCast(started, to: GCallback.self),
                unsafeBitCast(acceptAll, to: gpointer.self), nil, GConnectFlags(0))
        }
        let box = Unmanaged.passRetained(RouteBox(self)).toOpaque()
        soup_server_add_handler(
            server, nil,
            { _, message, path, _, data in
                guard let data, let message else { return }
                let box = Unmanaged<RouteBox>.fromOpaque(data).takeUnretainedValue()
                let path = path.map { String(cString: $0) } ?? "/"
                MainActor.assumeIsolated {
                    box.server?.handle(UnsafeMutableRawPointer(message), path: path)
                }
            }, box, { data in
                if let data { Unmanaged<RouteBox>.fromOpaque(data).release() }
            })
        var options = SOUP_SERVER_LISTEN_IPV4_ONLY.rawValue
        if certificate != nil { options |= SOUP_SERVER_LISTEN_HTTPS.rawValue }
        try withGError { error in
            _ = soup_server_listen_local(server, 0, SoupServerListenOptions(options), error)
        }
        port = boundPort(of: server)
    }

    /// An HTTPS server that requires a client certificate in the TLS handshake
    /// (`G_TLS_AUTHENTICATION_REQUIRED`) and checks it against the CA in `clientCA` (a PEM file);
    /// each request carries the subject it got.
    convenience init(certificate: UnsafeMutablePointer<GTlsCertificate>, requiringClientCertificatesFrom clientCA: String) throws {
        try self.init(certificate: certificate, clientCA: clientCA)
    }

    /// `http(s)://127.0.0.1:<port><path>`.
    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    func route(_ path: String, _ route: @escaping Route) { routes[path] = route }

    /// A WebSocket at `path` that sends every message back (libsoup's websocket handler).
    func echoWebSocket(at path: String) {
        guard let server else { return }
        soup_server_add_websocket_handler(
            server, path, nil, nil,
            { _, _, _, connection, _ in
                guard let connection else { return }
                // Kept until it closes: the handler does not own it.
                g_object_ref(UnsafeMutableRawPointer(connection))
                let echo: @convention(c) (OpaquePointer?, Int32, OpaquePointer?, gpointer?) -> Void = { connection, type, message, _ in
                    guard let connection, let message else { return }
                    soup_websocket_connection_send_message(connection, SoupWebsocketDataType(UInt32(type)), message)
                }
                let closed: @convention(c) (OpaquePointer?, gpointer?) -> Void = { connection, _ in
                    if let connection { g_object_unref(UnsafeMutableRawPointer(connection)) }
                }
                g_signal_connect_data(UnsafeMutableRawPointer(connection), "message", unsafeBitCast(echo, to: GCallback.self), nil, nil, GConnectFlags(0))
                g_signal_connect_data(UnsafeMutableRawPointer(connection), "closed", unsafeBitCast(closed, to: GCallback.self), nil, nil, GConnectFlags(0))
            }, nil, nil)
    }

    func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    /// Stops listening (the port is then refused) and frees the server.
    func close() {
        guard let server else { return }
        soup_server_disconnect(server)
        g_object_unref(UnsafeMutableRawPointer(server))
        self.server = nil
    }

    private func handle(_ message: UnsafeMutableRawPointer, path: String) {
        let message = OpaquePointer(message)
        let uri = soup_server_message_get_uri(message)
        let query = uri.flatMap { g_uri_get_query($0) }.map { String(cString: $0) }
        let method = soup_server_message_get_method(message).map { String(cString: $0) } ?? "?"
        let headers = soup_server_message_get_request_headers(message)
        let cookie = soup_message_headers_get_one(headers, "Cookie").map { String(cString: $0) }
        var body = ""
        if let requestBody = soup_server_message_get_request_body(message), let data = requestBody.pointee.data {
            body = String(decoding: UnsafeRawBufferPointer(start: data, count: Int(requestBody.pointee.length)), as: UTF8.self)
        }
        let acceptLanguage = soup_message_headers_get_one(headers, "Accept-Language").map { String(cString: $0) }
        let authorization = soup_message_headers_get_one(headers, "Authorization").map { String(cString: $0) }
        let peer = soup_server_message_get_tls_peer_certificate(message)
        let request = Request(
            method: method, path: path, query: query, cookie: cookie, body: body, acceptLanguage: acceptLanguage,
            authorization: authorization, userAgent: soup_message_headers_get_one(headers, "User-Agent").map { String(cString: $0) },
            clientSubject: peer.flatMap { certificate in
                g_tls_certificate_get_subject_name(certificate).map { name in
                    defer { g_free(name) }
                    return String(cString: name)
                }
            },
            clientCertificateTrusted: peer != nil && soup_server_message_get_tls_peer_certificate_errors(message).rawValue == 0)
        requests.append(request)
        let response = routes[path]?(request) ?? Response(status: 404, body: "not found")
        if response.dropsConnection {
            if let stream = soup_server_message_steal_connection(message) {
                g_io_stream_close(stream, nil, nil)
                g_object_unref(UnsafeMutableRawPointer(stream))
            }
            return
        }
        if let delay = response.delay {
            g_object_ref(UnsafeMutableRawPointer(message))
            soup_server_message_pause(message)
            Task { @MainActor in
                try? await Task.sleep(for: delay)
                Self.respond(message, response)
                soup_server_message_unpause(message)
                g_object_unref(UnsafeMutableRawPointer(message))
            }
        } else {
            Self.respond(message, response)
        }
    }

    private static func respond(_ message: OpaquePointer, _ response: Response) {
        soup_server_message_set_status(message, response.status, nil)
        let headers = soup_server_message_get_response_headers(message)
        for (name, value) in response.headers { soup_message_headers_append(headers, name, value) }
        let bytes = Array(response.body.utf8)
        soup_server_message_set_response(message, response.contentType, SOUP_MEMORY_COPY, bytes, gsize(bytes.count))
    }
}

/// The server a libsoup handler's user data points to (weakly: the handler must not keep it alive).
final class RouteBox {
    @MainActor weak var server: TestServer?
    @MainActor init(_ server: TestServer) { self.server = server }
}
