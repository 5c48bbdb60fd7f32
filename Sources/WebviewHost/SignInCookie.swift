public import Foundation

/// A cookie an embedded sign-in puts in its view's cookie store before the first page loads,
/// for one host, and takes out again when the session ends: the single-sign-on cookie a device
/// broker issues (Microsoft's PRT SSO cookie, `x-ms-RefreshTokenCredential`), so that a managed
/// device signs in without a password and passes device policies.
///
/// A sign-in cookie is a session cookie (no expiry, so WebKit never writes it to its cookie
/// file), host-only (sent to ``host`` exactly, never to a subdomain or another host),
/// `HttpOnly` (the page's scripts cannot read it), and `Secure` for an `https` host (sent over
/// TLS only; a loopback `http` authority, as in tests, gets it without).
///
/// `SignIn`'s `PublicClientApplication` fills ``WebviewParameters/signInCookies`` itself from a
/// token broker that offers them (see `TokenBroker.signInCookies(for:)`); an app that speaks to
/// a broker of its own can set them directly.
public struct SignInCookie: Hashable, Sendable {
    /// The cookie's name (`x-ms-RefreshTokenCredential`).
    public var name: String
    /// Its value, sent as is: the characters of a cookie value only (no `;`, `,`, whitespace,
    /// quotes, backslashes or controls).
    public var value: String
    /// The one host it is sent to (`login.microsoftonline.com`), without a port.
    public var host: String
    /// Whether it is sent only over `https`.
    public var isSecure: Bool

    public init(name: String, value: String, host: String, isSecure: Bool = true) {
        self.name = name
        self.value = value
        self.host = host
        self.isSecure = isSecure
    }

    /// A cookie for the host of `url`: `Secure` when `url` is `https`.
    public init(name: String, value: String, for url: URL) {
        self.init(name: name, value: value, host: (url.host ?? "").lowercased(), isSecure: url.scheme?.lowercased() == "https")
    }

    /// Why the cookie cannot be set, or `nil` when it can (RFC 6265 4.1.1's token and
    /// cookie-octet characters; a host name without a port, slash or wildcard).
    public var problem: String? {
        func isToken(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value > 0x20 && scalar.value < 0x7F && !"()<>@,;:\\\"/[]?={}".unicodeScalars.contains(scalar)
        }
        func isCookieOctet(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value > 0x20 && scalar.value < 0x7F && !"\",;\\".unicodeScalars.contains(scalar)
        }
        if name.isEmpty || !name.unicodeScalars.allSatisfy(isToken) {
            return "the sign-in cookie's name \"\(name)\" is empty or has characters a cookie name cannot have"
        }
        if value.isEmpty || !value.unicodeScalars.allSatisfy(isCookieOctet) {
            return "the sign-in cookie \(name) has an empty value or characters a cookie value cannot have"
        }
        let hostCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-"))
        if host.isEmpty || host.hasPrefix(".") || host.unicodeScalars.contains(where: { !hostCharacters.contains($0) || $0.value > 0x7F }) {
            return "the sign-in cookie \(name) names \"\(host)\", which is not one host name"
        }
        return nil
    }
}
