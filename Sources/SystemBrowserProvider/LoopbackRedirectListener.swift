import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// The loopback HTTP listener a system-browser sign-in ends at (RFC 8252 section 7.3): a libsoup
/// `SoupServer` on the GLib main context, fed by a ``LoopbackSocketService`` bound to 127.0.0.1
/// and/or ::1 only, never to all interfaces.
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
/// `MSG_PEEK` (``WaitingConnection``; the bytes stay for libsoup). That line is the only thing
/// parsed by hand: when libsoup refuses a request with 400 before the listener sees it (a target
/// it cannot parse, such as `/callback?code=%zz`), its raw path says whether it was the callback
/// (which ends the session) or anything else (which is ignored).
///
/// One job per file: this one holds the state and its lifecycle (binding, closing, the grace
/// period); connections and their hand-over to libsoup are in `+Connections`, answering a request
/// in `+Answers`, the `Host` check in `+Host`, the request line's path in `+RequestLine`.
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
        /// One of the library's pages, in the browser's language.
        case builtIn(status: UInt32, BrowserCompletionPage)
        /// The app's own page.
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
    var port: Int { sockets.port }
    /// The `Host` header values the listener answers (`127.0.0.1:<port>`, `[::1]:<port>`,
    /// `localhost:<port>`, per the redirect URI's host; without the port too when it is 80).
    let expectedHosts: Set<String>
    /// The host as the redirect URI names it (`127.0.0.1`, `[::1]`, `localhost`).
    var host: String { sockets.host }

    /// The longest request line read by hand; a longer one is handed to libsoup as it is.
    static let requestLineLimit = 8192
    /// How long, after ``close()``, requests already read may still be answered.
    static let closingGrace: Duration = .seconds(2)

    private let sockets: LoopbackSocketService
    /// The server, until ``disconnect()``.
    private(set) var server: GObjectRef<UnsafeMutablePointer<SoupServer>>?
    private let signals = SignalConnections()
    /// The messages ``onRequest`` answered (by address), until libsoup reports them finished.
    var answered = Set<UInt>()
    /// Connections whose request line has not fully arrived yet.
    var waiting: [ObjectIdentifier: WaitingConnection] = [:]
    /// The request line of each connection handed to libsoup, by the peer's address.
    var requestLines: [String: String] = [:]
    /// Whether ``close()`` ran: new requests get the "already ended" page.
    private(set) var closing = false
    /// Ends the grace period at its deadline; released (and the listener with it) by ``disconnect()``.
    private var graceDeadline: GSourceRef?

    /// Binds a listener on `host` (a ``WebviewHost/LoopbackHost``; `localhost` binds 127.0.0.1 and ::1) and `port`
    /// (0: the kernel picks one).
    ///
    /// - Throws: `redirectListenerFailed` when the port is busy or cannot be bound; `invalidParameters`
    ///   for a host that is not loopback.
    init(host: String, port: Int) throws(WebAuthError) {
        sockets = try LoopbackSocketService(host: host, port: port)
        // The browser names the host as it writes it ([::1]); another client as the redirect URI does.
        expectedHosts = Self.expectedHosts(host: sockets.host, port: sockets.port)
            .union(Self.expectedHosts(host: host.lowercased(), port: sockets.port))
        let server = GObjectRef(adopting: wvh_soup_server_new()!)
        self.server = server
        // Weak: the server never keeps the listener alive.
        addRequestHandler(to: server.pointer, path: nil) { [weak self] message in self?.respond(to: message) }
        // The argument is a `SoupServerMessage *` (opaque).
        signals.connect(server, "request-finished", .pointer { [weak self] (message: OpaquePointer?) in
            guard let self, let message else { return }
            self.finished(message)
        })
        signals.connect(server, "request-aborted", .pointer { [weak self] (message: OpaquePointer?) in
            guard let self, let message else { return }
            self.aborted(message)
        })
        sockets.start { [weak self] connection in self?.accept(connection) }
    }

    isolated deinit {
        // Nothing may keep a deinitializing listener: every connection closes now.
        close(answeringPending: false)
    }

    /// Whether the listener still accepts connections.
    var isOpen: Bool { sockets.isOpen }

    /// Closes the listening sockets now, so the port refuses connections, and every connection
    /// that has not sent its request line. Requests already read are answered "already ended"
    /// (or with the page already queued) for at most ``closingGrace``; then every connection is
    /// closed and the server released. Calling it again does nothing.
    func close() {
        close(answeringPending: true)
    }

    private func close(answeringPending: Bool) {
        guard sockets.isOpen else { return disconnect() }
        sockets.close()
        closing = true
        onRequest = nil
        onMalformedRequest = nil
        // A request line that already arrived is answered ("already ended"); the rest are closed.
        if answeringPending {
            for connection in Array(waiting.values) { connection.checkNow() }
        }
        for connection in waiting.values { connection.close() }
        waiting.removeAll()
        guard answeringPending, !requestLines.isEmpty else { return disconnect() }
        // The deadline's closure keeps the listener until its last answers are written
        // (``endGraceIfAnswered()``, when libsoup reports the last one finished) or the grace ends.
        graceDeadline = GSourceRef.timeout(after: Self.closingGrace) { [self] in
            disconnect()
            return false
        }
    }

    /// During the grace period after ``close()``: once no answer is pending any more, releases
    /// everything (when idle, after libsoup has returned from the signal that said so).
    func endGraceIfAnswered() {
        guard graceDeadline != nil, requestLines.isEmpty else { return }
        whenIdle { [self] in disconnect() }
    }

    /// Closes every connection libsoup holds and releases the server. Calling it again does nothing.
    private func disconnect() {
        graceDeadline = nil
        guard let server else { return }
        self.server = nil
        requestLines.removeAll()
        signals.disconnectAll()
        soup_server_remove_handler(server.pointer, nil)
        soup_server_disconnect(server.pointer)
    }
}
