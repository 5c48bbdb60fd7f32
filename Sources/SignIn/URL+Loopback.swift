import Foundation
import WebviewHost

extension URL {
    /// `https` with a host, or `http` to a loopback host (``WebviewHost/LoopbackHost``, the one
    /// rule the whole library uses): the only URLs this library signs in at, fetches tokens and
    /// keys from, or accepts as an `http` redirect URI.
    var isHTTPSOrLoopback: Bool {
        guard let host = URLComponents(url: self, resolvingAgainstBaseURL: true)?.percentEncodedHost else {
            return false
        }
        if scheme?.lowercased() == "https" { return !host.isEmpty }
        return isLoopbackHTTP
    }
}
