internal import CGLib
public import Foundation

/// The checks a browser makes before any key is touched, made by the library from what it knows
/// of the frame, never from what the page says: the frame's origin is a secure context, and the
/// relying party id the page names is that origin's host or a registrable suffix of it (the
/// public suffix list, through libsoup's libpsl: `soup_tld_domain_is_public_suffix`).
public enum RelyingPartyCheck {
    /// The frame's origin, serialized as `location.origin` is (`https://login.example.com`, a
    /// port only when not the scheme's default, an IPv6 host in brackets), when it is a secure
    /// context: https, or http on loopback (127.0.0.0/8, ::1, `localhost` and its subdomains),
    /// as browsers treat them. `nil` for anything else.
    public static func secureOrigin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        switch scheme {
        case "https": break
        case "http" where isLoopback(host): break
        default: return nil
        }
        let defaultPort = scheme == "https" ? 443 : 80
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let port = url.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        return "\(scheme)://\(shownHost)\(port)"
    }

    /// The host of a serialized origin (without brackets).
    public static func host(ofOrigin origin: String) -> String? {
        URL(string: origin)?.host?.lowercased()
    }

    /// Whether `relyingPartyID` may be used by a page whose origin's host is `host`: the host
    /// itself, or a suffix of it on a label boundary that is not a public suffix (`example.com`
    /// for `login.example.com`; never `com`, `co.uk` or `github.io`). An IP address host allows only
    /// itself.
    public static func allows(relyingPartyID: String, forHost host: String) -> Bool {
        let id = relyingPartyID.lowercased()
        let host = host.lowercased()
        if id == host { return !id.isEmpty }
        guard !isIPAddress(host), host.hasSuffix("." + id), !id.isEmpty, !id.hasPrefix("."), !id.contains("..") else { return false }
        return soup_tld_domain_is_public_suffix(id) == 0
    }

    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let parts = host.split(separator: ".")
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil })
    }
}
