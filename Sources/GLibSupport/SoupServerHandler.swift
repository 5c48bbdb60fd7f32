public import CGLib

/// Adds `body` as `server`'s handler for requests under `path` (`nil`: every request;
/// `soup_server_add_handler`). It runs on the main thread with each `SoupServerMessage *` libsoup
/// has read; the closure is released once, when the handler is removed
/// (`soup_server_remove_handler`) or the server is finalized. Capture the owner weakly: the server
/// keeps the closure.
///
/// ```swift
/// addRequestHandler(to: server.pointer, path: nil) { [weak self] message in self?.respond(to: message) }
/// ```
@MainActor
public func addRequestHandler(
    to server: UnsafeMutablePointer<SoupServer>, path: String?, _ body: @escaping @MainActor (_ message: OpaquePointer) -> Void
) {
    typealias Body = @MainActor (OpaquePointer) -> Void
    soup_server_add_handler(
        server, path,
        { _, message, _, _, data in
            guard let message else { return }
            let body = UserData<Body>.borrow(data)
            MainActor.assumeIsolated { [message = UnsafeSendable(message)] in body(message.value) }
        },
        UserData<Body>.retained(body), UserData<Body>.destroyNotify)
}
