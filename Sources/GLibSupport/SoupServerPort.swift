public import CGLib

/// The port a listening `SoupServer` is bound to (from `soup_server_get_uris`), or 0 when it
/// listens nowhere. Use it after `soup_server_listen_local(server, 0, ...)` let the kernel choose.
@MainActor
public func boundPort(of server: UnsafeMutablePointer<SoupServer>) -> Int {
    var port = 0
    let uris = soup_server_get_uris(server)
    var node = uris
    while let current = node {
        if let uri = current.pointee.data {
            port = Int(g_uri_get_port(OpaquePointer(uri)))
            g_uri_unref(OpaquePointer(uri))
        }
        node = current.pointee.next
    }
    g_slist_free(uris)
    return port
}
