public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one rule for "this machine" in a URL: a host that names a loopback address. The
/// configuration's checks, the redirect URI (``RedirectURI/isLoopback``), the providers and the
/// loopback listener all ask it, so a redirect URI the configuration accepts is one the person's
/// browser can return to.
///
/// Hosts are parsed with `inet_pton`, never compared by prefix (`127.evil.example` is a DNS name
/// anyone can point anywhere). The rule is deliberately narrower than what resolvers and
/// browsers accept, because a host wrongly taken for loopback means tokens over plain HTTP to
/// another machine, while one wrongly refused only asks the app for `127.0.0.1`:
/// - IPv4 only as a dotted quad of decimal numbers without leading zeros, in 127.0.0.0/8
///   (`127.0.0.2` is loopback; `127.1`, `0x7f.0.0.1`, `2130706433`, `127.0.0.01` are not, since
///   other parsers read such forms differently);
/// - IPv6 only in brackets, any spelling of `::1` (`[0:0:0:0:0:0:0:1]`); no zone index, and no
///   IPv4-mapped address (`[::ffff:127.0.0.1]`), whose handling depends on the socket;
/// - `localhost` exactly, in any case; not `localhost.` nor `*.localhost`, which go through DNS
///   search rules on some systems;
/// - a trailing dot (`127.0.0.1.`) or any percent-encoding makes the host not loopback.
public struct LoopbackHost: Hashable, Sendable, CustomStringConvertible {
    /// Which loopback address a host names.
    public enum Address: Hashable, Sendable {
        /// An IPv4 address in 127.0.0.0/8, as `inet_ntop` writes it (`127.0.0.2`).
        case ipv4(String)
        /// `::1`, however it was written.
        case ipv6
        /// `localhost`: 127.0.0.1 and ::1 both.
        case localhost
    }

    public let address: Address

    /// The loopback host `host` names, as written in a URL (percent-encoded, IPv6 literals in
    /// brackets); `nil` when it is not loopback by the rule above.
    public init?(_ host: String) {
        if host.lowercased() == "localhost" {
            address = .localhost
            return
        }
        if host.hasPrefix("["), host.hasSuffix("]") {
            var bytes = in6_addr()
            guard inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &bytes) == 1,
                withUnsafeBytes(of: &bytes, { $0.elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]) })
            else { return nil }
            address = .ipv6
            return
        }
        var bytes = in_addr()
        guard inet_pton(AF_INET, host, &bytes) == 1, withUnsafeBytes(of: &bytes, { $0.first == 127 }) else { return nil }
        address = .ipv4(host)
    }

    /// The loopback host of `url`, when it has one (any scheme).
    public init?(of url: URL) {
        guard let host = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedHost else { return nil }
        self.init(host)
    }

    /// Whether `host` (as written in a URL) names this machine by the rule above.
    public static func isLoopback(_ host: String) -> Bool { LoopbackHost(host) != nil }

    /// The addresses a listener binds for this host (`localhost`: both families, IPv4 first).
    public var socketAddresses: [String] {
        switch address {
        case .ipv4(let dotted): [dotted]
        case .ipv6: ["::1"]
        case .localhost: ["127.0.0.1", "::1"]
        }
    }

    /// The host as a browser writes it in a URL and a `Host` header (`127.0.0.2`, `[::1]`, `localhost`).
    public var description: String {
        switch address {
        case .ipv4(let dotted): dotted
        case .ipv6: "[::1]"
        case .localhost: "localhost"
        }
    }
}

extension URL {
    /// `http` to a loopback host (``LoopbackHost``): a URL whose traffic never leaves this machine.
    public var isLoopbackHTTP: Bool {
        scheme?.lowercased() == "http" && LoopbackHost(of: self) != nil
    }
}
