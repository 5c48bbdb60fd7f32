public import Foundation

/// A proxy the app gives for sign-ins, instead of the desktop's proxy settings: the route of the
/// library's sign-in window's pages and of `SignIn`'s own requests alike (set it once, on
/// `PublicClientApplicationConfiguration.networkProxy`).
///
/// ```swift
/// let proxy = try NetworkProxy("http://proxy.example.com:3128", bypassHosts: ["localhost", "*.intranet.example.com"])
/// ```
public struct NetworkProxy: Hashable, Sendable, CustomStringConvertible {
    /// The schemes a proxy URL may have.
    public static let schemes: Set<String> = ["http", "https", "socks5", "socks4a", "socks4"]

    /// The proxy: `http://`, `https://` or `socks5://` (`socks4a://`, `socks4://`) with a host and
    /// a port.
    public let url: URL
    /// Hosts reached directly, not through the proxy, as GIO's `GSimpleProxyResolver` reads them:
    /// a name (`intranet.example.com`), a pattern (`*.example.com`), an address or a range
    /// (`10.0.0.0/8`), each optionally with `:port`.
    public let bypassHosts: [String]

    /// Checks `address` and keeps it.
    /// - Throws: ``WebAuthError/Code-swift.struct/invalidParameters`` when `address` is not a URL
    ///   with one of ``schemes``, a host and no path, query or user name (a password in a URL
    ///   would end up in logs), or when a bypass host is empty.
    public init(_ address: String, bypassHosts: [String] = []) throws(WebAuthError) {
        let text = address.trimmingCharacters(in: .whitespaces)
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), components.host != nil else {
            throw WebAuthError(
                .invalidParameters,
                "The proxy \"\(address)\" is not a URL: give it as scheme://host:port, for example http://proxy.example.com:3128 or socks5://127.0.0.1:1080.")
        }
        guard Self.schemes.contains(scheme) else {
            throw WebAuthError(
                .invalidParameters,
                "The proxy \"\(address)\" has the scheme \"\(scheme)\"; a proxy is http://, https://, socks5://, socks4a:// or socks4://.")
        }
        guard let host = components.host, !host.isEmpty else {
            throw WebAuthError(.invalidParameters, "The proxy \"\(address)\" names no host: give it as \(scheme)://host:port.")
        }
        guard components.user == nil, components.password == nil else {
            throw WebAuthError(
                .invalidParameters,
                "The proxy at \(host) carries a user name or password in its URL (not repeated here); give the URL without them.")
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil else {
            throw WebAuthError(.invalidParameters, "The proxy \"\(address)\" has a path or query; a proxy is only scheme://host:port.")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw WebAuthError(.invalidParameters, "The proxy \"\(address)\" has the port \(port); a port is 1 to 65535.")
        }
        if let empty = bypassHosts.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw WebAuthError(.invalidParameters, "Bypass host \(empty + 1) of the proxy \"\(address)\" is empty; name a host, a pattern or an address range.")
        }
        var normalized = URLComponents()
        normalized.scheme = scheme
        normalized.host = host
        normalized.port = components.port
        url = normalized.url!
        self.bypassHosts = bypassHosts.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The proxy's URL, with the bypassed hosts when there are any.
    public var description: String {
        bypassHosts.isEmpty ? url.absoluteString : "\(url.absoluteString) (not for \(bypassHosts.joined(separator: ", ")))"
    }
}
