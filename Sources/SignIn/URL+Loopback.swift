import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension URL {
    /// `https` with a host, or `http` to a loopback host (see ``isLoopbackHost(_:)``): the only
    /// URLs this library signs in at, fetches tokens and keys from, or accepts as an `http`
    /// redirect URI.
    var isHTTPSOrLoopback: Bool {
        let scheme = scheme?.lowercased()
        guard let host = URLComponents(url: self, resolvingAgainstBaseURL: true)?.percentEncodedHost else {
            return false
        }
        if scheme == "https" { return !host.isEmpty }
        return scheme == "http" && Self.isLoopbackHost(host)
    }

    /// Whether `host`, as written in a URL (percent-encoded, IPv6 literals in brackets), names
    /// this machine: an IPv4 address in 127.0.0.0/8, the IPv6 address `::1`, or `localhost`.
    ///
    /// The check parses addresses with `inet_pton`, never compares prefixes (`127.evil.example`
    /// is a DNS name anyone can point anywhere). It is deliberately narrower than what resolvers
    /// and browsers accept, because a host wrongly taken for loopback means tokens over plain
    /// HTTP to another machine, while one wrongly refused only asks the app for `https` or
    /// `127.0.0.1`:
    /// - IPv4 only as a dotted quad of decimal numbers without leading zeros (`inet_pton`'s
    ///   form): `127.1`, `0x7f.0.0.1`, `2130706433`, `127.0.0.01` are refused, since other
    ///   parsers read such forms differently;
    /// - IPv6 only in brackets, any spelling of `::1` (`[0:0:0:0:0:0:0:1]`); no zone index, and
    ///   no IPv4-mapped address (`[::ffff:127.0.0.1]`), whose handling depends on the socket;
    /// - `localhost` exactly, in any case; not `localhost.` nor `*.localhost`, which go through
    ///   DNS search rules on some systems;
    /// - a trailing dot (`127.0.0.1.`) or any percent-encoding makes the host not loopback.
    static func isLoopbackHost(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        if host.hasPrefix("["), host.hasSuffix("]") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &address) == 1 else { return false }
            return withUnsafeBytes(of: &address) { $0.elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]) }
        }
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { return false }
        return withUnsafeBytes(of: &address) { $0.first == 127 }
    }
}
