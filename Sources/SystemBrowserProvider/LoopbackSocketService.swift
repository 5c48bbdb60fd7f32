import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// The listening half of ``LoopbackRedirectListener``: a `GSocketService` bound to 127.0.0.1 and/or
/// ::1 only (never to all interfaces), on the port asked for or one the kernel picks, that hands
/// every accepted connection to the listener. Main thread only.
@MainActor
final class LoopbackSocketService {
    /// The port the sockets are bound to.
    let port: Int
    /// The host as a browser writes it (`127.0.0.1`, `[::1]`, `localhost`; ``LoopbackHost/description``).
    let host: String

    private var service: GObjectRef<UnsafeMutablePointer<GSocketService>>?
    private let signals = SignalConnections()

    /// Binds `host` (a ``LoopbackHost``: an address in 127.0.0.0/8, `[::1]` in any spelling, or
    /// `localhost` for 127.0.0.1 and ::1) on `port` (0: the kernel picks one, the same for both
    /// addresses). Nothing is accepted before ``start(_:)``.
    ///
    /// - Throws: `redirectListenerFailed` when the port is busy or cannot be bound; `invalidParameters`
    ///   for a host that is not loopback or a port out of range.
    init(host: String, port: Int) throws(WebAuthError) {
        guard let loopback = LoopbackHost(host) else {
            throw WebAuthError(
                .invalidParameters,
                "The redirect host \"\(host)\" is not a loopback address; use http://127.0.0.1 or http://[::1].")
        }
        let addresses = loopback.socketAddresses
        let hostName = loopback.description
        guard (0...65535).contains(port) else {
            throw WebAuthError(.invalidParameters, "The redirect URI's port \(port) is not a valid TCP port.")
        }
        let service = GObjectRef(adopting: g_socket_service_new()!)
        let listener = wvh_socket_listener(service.pointer)
        // GIO's default backlog is 10: a local process opening connections in a burst would make
        // the browser's own connection wait for SYN retransmits (a second or more each).
        g_socket_listener_set_backlog(listener, gint(SOMAXCONN))
        var boundPort = port
        for (index, address) in addresses.enumerated() {
            let socketAddress = GObjectRef(adopting: g_inet_socket_address_new_from_string(address, guint(boundPort))!)
            var effective: UnsafeMutablePointer<GSocketAddress>?
            do {
                _ = try withGError {
                    g_socket_listener_add_address(
                        listener, socketAddress.pointer, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, nil, &effective, $0)
                }
            } catch {
                // localhost: ::1 is a bonus where IPv6 is off; 127.0.0.1 is required.
                if index > 0 { continue }
                g_socket_listener_close(listener)
                let busy = error.isIOError(G_IO_ERROR_ADDRESS_IN_USE)
                throw WebAuthError(
                    .redirectListenerFailed,
                    busy
                        ? "Port \(port) on \(host) is already in use by another program, so the sign-in cannot "
                            + "receive its redirect. Close the program using it, or register a redirect URI without a port."
                        : "The sign-in could not listen for its redirect on \(host):\(port): \(error.message).",
                    underlyingError: error)
            }
            if let effective = effective.map(GObjectRef.init(adopting:)), boundPort == 0 {
                boundPort = Int(g_inet_socket_address_get_port(wvh_inet_socket_address(effective.pointer)))
            }
        }
        self.port = boundPort
        self.host = hostName
        self.service = service
    }

    isolated deinit {
        close()
    }

    /// Starts accepting: `onConnection` gets every new connection on the main thread (`incoming`).
    func start(_ onConnection: @escaping @MainActor (UnsafeMutablePointer<GSocketConnection>) -> Void) {
        guard let service else { return }
        // `incoming`: gboolean (*)(GSocketService *, GSocketConnection *, GObject *source, gpointer).
        signals.connect(service, "incoming", .twoPointersReturningBool {
            (connection: UnsafeMutablePointer<GSocketConnection>?, _: UnsafeMutablePointer<GObject>?) in
            guard let connection else { return false }
            onConnection(connection)
            return true
        })
        g_socket_service_start(service.pointer)
    }

    /// Whether the sockets still accept connections.
    var isOpen: Bool { service != nil }

    /// Closes the listening sockets now: the port refuses connections. Calling it again does nothing.
    func close() {
        guard let service else { return }
        self.service = nil
        signals.disconnectAll()
        g_socket_service_stop(service.pointer)
        g_socket_listener_close(wvh_socket_listener(service.pointer))
    }
}
