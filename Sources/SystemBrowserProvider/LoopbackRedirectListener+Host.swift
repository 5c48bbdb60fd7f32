import CGLib

/// The `Host` check: only requests naming the listener itself (as the redirect URI does) are the
/// browser coming back; any other name for the address (DNS rebinding) is answered 421.
extension LoopbackRedirectListener {
    /// `<host>:<port>`, and `<host>` alone too on port 80 (where browsers leave the port out).
    static func expectedHosts(host: String, port: Int) -> Set<String> {
        var hosts: Set<String> = ["\(host):\(port)"]
        if port == 80 { hosts.insert(host) }
        return hosts
    }

    /// Whether the message's `Host` header is one of ``expectedHosts`` (case-insensitive).
    func hasOwnHost(_ message: OpaquePointer) -> Bool {
        let headers = soup_server_message_get_request_headers(message)
        guard let value = soup_message_headers_get_one(headers, "Host") else { return false }
        return expectedHosts.contains(String(cString: value).lowercased())
    }
}
