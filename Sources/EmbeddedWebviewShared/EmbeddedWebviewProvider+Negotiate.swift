#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
public import Foundation
public import WebviewHost

extension EmbeddedWebviewProvider {
    /// Lets the embedded view answer `WWW-Authenticate: Negotiate` (Windows Integrated
    /// Authentication: Kerberos with the person's ticket, as AD FS and intranet sign-in pages ask)
    /// at these origins, plain http included: `http://intranet.example.com:8080`,
    /// `https://adfs.example.com` (no port: any port).
    ///
    /// Without this call WebKit answers Negotiate at every https host and at no http one. Once
    /// origins are named, only they are answered: name the https ones that ask too.
    ///
    /// Process-wide, and only before the app's first web view: libsoup reads the list once, in
    /// WebKit's network process, from the environment that process inherits when it starts
    /// (`SOUP_GSSAPI_TRUSTED_URIS`, which this call extends), so it cannot be chosen per session.
    /// A `customWebview` needs this call before the app makes its first `WebKitWebView` (or the
    /// app's own `SOUP_GSSAPI_TRUSTED_URIS`). Main thread.
    ///
    /// - Throws: `invalidParameters` for a URL that is not http or https with a host, or when
    ///   the library has already started WebKit's network process (a sign-in window was made or
    ///   prewarmed): the list would not reach it.
    @MainActor
    public static func allowNegotiate(to origins: [URL]) throws(WebAuthError) {
        guard !SignInWebContexts.started else {
            throw WebAuthError(
                .invalidParameters,
                "allowNegotiate(to:) was called after the first sign-in window was made: WebKit's network process "
                    + "reads the hosts only when it starts. Call it at the start of the app, before any web view.")
        }
        var entries: [String] = []
        for origin in origins {
            guard let entry = NegotiateHosts.entry(for: origin) else {
                throw WebAuthError(
                    .invalidParameters,
                    "allowNegotiate(to:) takes http or https origins with a host, such as https://adfs.example.com; "
                        + "\"\(origin.absoluteString)\" is not one.", url: origin)
            }
            entries.append(entry)
        }
        NegotiateHosts.add(entries)
    }
}

/// The origins WebKit's network process answers Negotiate at (`SOUP_GSSAPI_TRUSTED_URIS`, as
/// libsoup reads it: comma-separated `scheme://host[:port]`).
enum NegotiateHosts {
    static let variable = "SOUP_GSSAPI_TRUSTED_URIS"

    /// `scheme://host[:port]` of an http(s) URL with a host; `nil` otherwise.
    static func entry(for url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, !host.contains(",")
        else { return nil }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed.lowercased())" + (url.port.map { ":\($0)" } ?? "")
    }

    /// Adds `entries` to the environment's list (what the app set itself stays).
    static func add(_ entries: [String]) {
        let current = current()
        let merged = current + entries.filter { !current.contains($0) }
        g_setenv(variable, merged.joined(separator: ","), 1)
    }

    static func current() -> [String] {
        guard let value = g_getenv(variable) else { return [] }
        return String(cString: value).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// What `WEBVIEW_HOST_PROVIDER=help` says of Negotiate: whether libsoup can run it here, and where.
    static var helpNote: String {
        guard soup_auth_negotiate_supported() != 0 else {
            return "Windows sign-in (Kerberos, Negotiate): cannot run here (libsoup was built without GSSAPI)"
        }
        let listed = current()
        let hosts = listed.isEmpty ? "every https host" : listed.joined(separator: ", ")
        return "Windows sign-in (Kerberos, Negotiate): answered with the person's ticket at \(hosts); "
            + "without a valid ticket, or in an ephemeral session, the sign-in ends with integratedAuthenticationUnavailable"
    }

    /// Whether WebKit's network process sends a ticket to `url`: with no list, to every https URL
    /// (libsoup's default); with one, to the origins it names.
    static func reaches(_ url: URL?) -> Bool {
        current().isEmpty ? url?.scheme?.lowercased() == "https" : allows(url)
    }

    /// Whether the list names `url`'s origin (a listed origin without a port allows every port).
    static func allows(_ url: URL?) -> Bool {
        guard let url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return false }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return current().contains { entry in
            guard let listed = URL(string: entry), listed.scheme?.lowercased() == scheme,
                listed.host?.lowercased() == host
            else { return false }
            return listed.port.map { $0 == port } ?? true
        }
    }
}
