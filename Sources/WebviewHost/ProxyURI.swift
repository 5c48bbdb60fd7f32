import Foundation

/// A proxy's URI as the desktop gives it, which may carry a user name and password
/// (`http://user:password@proxy:3128` in `http_proxy`, or GNOME's proxy settings with
/// authentication on, which GIO's resolver writes the same way): the URI without them, and the
/// credential they make.
///
/// libsoup 3 and WebKit are given the URI without user info (with it, libsoup sends a request to
/// the proxy's own URL and fails with "Message was restarted too many times"); the credential
/// answers the proxy's first 407 (``ProxyAuthentication/seed(_:for:)``). Only `http://` and
/// `https://` proxies are split: a SOCKS proxy's user name and password are GIO's to send.
package struct ProxyURI: Sendable, Equatable {
    /// The URI without user info: what libsoup and WebKit get, and what messages may name.
    package let uri: String
    /// The user name and password the URI carried (percent-decoded), `nil` when it carried none
    /// or is not an HTTP proxy.
    package let credential: ProxyCredential?
    /// The proxy as `host:port`, as a 407 names it (``ProxyChallenge/proxy``); `nil` without a host.
    package let authority: String?

    /// Splits `text`; a URI without user info comes back as it is.
    package init(_ text: String) {
        guard let schemeEnd = text.range(of: "://") else {
            (uri, credential, authority) = (text, nil, nil)
            return
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
        var hostPort = rest[..<authorityEnd]
        var userInfo: Substring?
        if let at = hostPort.lastIndex(of: "@") {
            userInfo = hostPort[..<at]
            hostPort = hostPort[hostPort.index(after: at)...]
        }
        let http = scheme == "http" || scheme == "https"
        // A SOCKS proxy keeps its user info (GIO sends it in the SOCKS handshake).
        uri = http || userInfo == nil ? String(text[..<schemeEnd.upperBound]) + hostPort + rest[authorityEnd...] : text
        if http, let userInfo {
            let parts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in part.removingPercentEncoding ?? String(part) }
            credential = ProxyCredential(user: decode(parts[0]), password: parts.count > 1 ? decode(parts[1]) : "")
        } else {
            credential = nil
        }
        authority = hostPort.isEmpty ? nil : Self.authority(hostPort, scheme: scheme)
    }

    /// `host:port`, the scheme's port when none is written (as libsoup names the proxy).
    private static func authority(_ hostPort: Substring, scheme: String) -> String {
        let bracketEnd = hostPort.lastIndex(of: "]") ?? hostPort.startIndex
        if hostPort[bracketEnd...].contains(":") { return String(hostPort) }
        let port = switch scheme {
        case "https": 443
        case "socks", "socks4", "socks4a", "socks5": 1080
        default: 80
        }
        return "\(hostPort):\(port)"
    }

    /// `text` with the user info of every URI in it removed (`http://user:password@proxy:3128`
    /// becomes `http://proxy:3128`): for any text that may quote a proxy's URI, such as a GLib
    /// or libsoup error, before it reaches a message, a log or `help`.
    package static func redacting(_ text: String) -> String {
        guard text.contains("@"), text.contains("://") else { return text }
        // A scheme's `://` (kept, group 1) and the user info after it, up to its last `@`.
        let userInfo = try! Regex<(Substring, Substring)>(#"([A-Za-z][A-Za-z0-9+.\-]*://)[^/?#\s]*@"#)
        return text.replacing(userInfo) { match in match.output.1 }
    }
}
