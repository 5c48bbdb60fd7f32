public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A redirect URI and the contract's matching rule: scheme and host compared case-insensitively,
/// user info, port and path exactly (a scheme's default port equals no port), query and fragment
/// ignored. Never a prefix match: a login page whose query carries `redirect_uri=` does not match.
public struct RedirectURI: Hashable, Sendable, CustomStringConvertible {
    public let url: URL
    private let key: MatchKey

    /// Fails with `invalidParameters` for a URL that cannot be a redirect URI
    /// (relative, no scheme, or carrying a fragment, which RFC 6749 forbids).
    public init(_ url: URL) throws(WebAuthError) {
        guard let key = MatchKey(url) else {
            throw WebAuthError(
                .invalidParameters,
                "The redirect URI \"\(url.absoluteString)\" is not an absolute URI with a scheme.",
                url: url)
        }
        if url.fragment != nil {
            throw WebAuthError(
                .invalidParameters,
                "The redirect URI \"\(url.absoluteString)\" has a fragment; redirect URIs must not (RFC 6749 3.1.2).",
                url: url)
        }
        self.url = url
        self.key = key
    }

    /// Whether `candidate` is a navigation to this redirect URI.
    public func matches(_ candidate: URL) -> Bool {
        MatchKey(candidate) == key
    }

    /// Whether a reported callback is this redirect URI, from the components it was parsed into.
    package func matches(_ callback: CallbackURL) -> Bool {
        callback.components.flatMap(MatchKey.init) == key
    }

    /// Whether this is an `http` URI on a loopback address (RFC 8252 section 7.3), by the one
    /// rule of ``LoopbackHost``: 127.0.0.0/8, any spelling of `[::1]`, `localhost`.
    public var isLoopback: Bool {
        url.isLoopbackHTTP
    }

    public var description: String { url.absoluteString }

    /// The parts of a URI that the redirect match compares.
    private struct MatchKey: Hashable, Sendable {
        var scheme: String
        var user: String?
        var password: String?
        var host: String?
        var port: Int?
        var path: String

        init?(_ url: URL) {
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
            self.init(components)
        }

        init?(_ components: URLComponents) {
            guard let scheme = components.scheme?.lowercased(), !scheme.isEmpty else { return nil }
            self.scheme = scheme
            user = components.percentEncodedUser
            password = components.percentEncodedPassword
            host = Self.host(of: components).map(Self.canonicalIPv6)?.lowercased()
            let defaultPort: Int? = switch scheme {
            case "http": 80
            case "https": 443
            default: nil
            }
            port = components.port == defaultPort ? nil : components.port
            path = components.percentEncodedPath
            if path.isEmpty, host != nil, scheme == "http" || scheme == "https" { path = "/" }
        }

        /// An IPv6 literal as browsers write it (`[0:0:0:0:0:0:0:1]` is `[::1]`: WebKit and the
        /// browsers navigate to that spelling); any other host as it is.
        private static func canonicalIPv6(_ host: String) -> String {
            guard host.hasPrefix("["), host.hasSuffix("]") else { return host }
            var address = in6_addr()
            guard inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &address) == 1 else { return host }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return host }
            return "[" + String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "]"
        }

        /// `percentEncodedHost`, which IDNA-decodes every host with ICU (loading its UTS #46
        /// tables, over a MiB, for good); a host of ASCII letters, digits, `.`, `-` and `_` with no
        /// `xn--` label decodes to itself, so it is taken as it is.
        private static func host(of components: URLComponents) -> String? {
            guard let encoded = components.encodedHost, !encoded.isEmpty,
                encoded.utf8.allSatisfy({ byte in
                    switch byte {
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
                        true
                    default: false
                    }
                }),
                !encoded.lowercased().split(separator: ".").contains(where: { $0.hasPrefix("xn--") })
            else { return components.percentEncodedHost }
            return encoded
        }
    }
}
