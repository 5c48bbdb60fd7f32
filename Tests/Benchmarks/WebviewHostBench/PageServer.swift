import CGLib
import CWebKitGTK3
import GLibSupport
import Synchronization

/// The login page on 127.0.0.1, served by libsoup on the main thread's GLib loop while the
/// benchmark runs its children from another thread. `/login` is the page (it goes to `/done`
/// by itself); `/webauthn` is ``WebAuthnBenchmark``'s page; `/done` answers 302 to the redirect URI, as an authorization server does.
@MainActor
final class PageServer {
    nonisolated(unsafe) static var page = ""
    /// `/webauthn`: the page of ``WebAuthnBenchmark``.
    nonisolated(unsafe) static var webauthnPage = ""
    /// Where `/done` sends the browser (the redirect URI with a code and the state).
    nonisolated(unsafe) static var redirectLocation = ""
    /// CLOCK_MONOTONIC nanoseconds when the last 302 was written (its headers), 0 before any.
    nonisolated static let redirectSent = Atomic<Int64>(0)
    private let server: UnsafeMutablePointer<SoupServer>
    private(set) var port = 0

    init() throws {
        let server = wvh_soup_server_new()!
        self.server = server
        soup_server_add_handler(
            server, nil,
            { _, message, path, _, _ in
                guard let message else { return }
                if let path, String(cString: path) == "/done" {
                    soup_server_message_set_redirect(message, 302, PageServer.redirectLocation)
                    let wrote: @convention(c) (gpointer?, gpointer?) -> Void = { _, _ in
                        PageServer.redirectSent.store(Child.monotonicNanoseconds(), ordering: .sequentiallyConsistent)
                    }
                    g_signal_connect_data(UnsafeMutableRawPointer(message), "wrote-headers", unsafeBitCast(wrote, to: GCallback.self), nil, nil, GConnectFlags(rawValue: 0))
                    return
                }
                let bytes = Array((path.map { String(cString: $0) } == "/webauthn" ? PageServer.webauthnPage : PageServer.page).utf8)
                soup_server_message_set_status(message, 200, nil)
                soup_server_message_set_response(message, "text/html; charset=utf-8", SOUP_MEMORY_COPY, bytes, gsize(bytes.count))
            }, nil, nil)
        try withGError { error in
            _ = soup_server_listen_local(server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, error)
        }
        port = boundPort(of: server)
    }
}
