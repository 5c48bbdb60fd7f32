import Foundation

extension URL {
    /// `https`, or `http` to a loopback address (127.0.0.0/8, `localhost`, `[::1]`): the only
    /// URLs tokens and keys are fetched from.
    var isHTTPSOrLoopback: Bool {
        let scheme = scheme?.lowercased()
        if scheme == "https" { return host?.isEmpty == false }
        guard scheme == "http", let host = host?.lowercased() else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
