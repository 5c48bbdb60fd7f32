import CGLib
import CWebKitGTK
import GLibSupport

/// The login page on 127.0.0.1, served by libsoup on the main thread's GLib loop while the
/// benchmark runs its children from another thread.
@MainActor
final class PageServer {
    nonisolated(unsafe) static var page = ""
    private let server: UnsafeMutablePointer<SoupServer>
    private(set) var port = 0

    init() throws {
        let server = wvh_soup_server_new()!
        self.server = server
        soup_server_add_handler(
            server, nil,
            { _, message, _, _, _ in
                guard let message else { return }
                let bytes = Array(PageServer.page.utf8)
                soup_server_message_set_status(message, 200, nil)
                soup_server_message_set_response(message, "text/html; charset=utf-8", SOUP_MEMORY_COPY, bytes, gsize(bytes.count))
            }, nil, nil)
        try withGError { error in
            _ = soup_server_listen_local(server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, error)
        }
        port = boundPort(of: server)
    }
}
