import Foundation

/// The one thing read by hand: the path of a request line libsoup may refuse before the listener
/// sees the request.
extension LoopbackRedirectListener {
    /// The path of an HTTP request line (`GET /callback?code=x HTTP/1.1`), as sent: the target up
    /// to `?` or `#`, the scheme and authority removed from an absolute-form target. `nil` when the
    /// line has no target.
    nonisolated static func path(ofRequestLine line: String) -> String? {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count >= 2 else { return nil }
        var target = Substring(parts[1])
        if let scheme = target.range(of: "://"), target[..<scheme.lowerBound].allSatisfy(\.isLetter) {
            let authority = target[scheme.upperBound...]
            target = authority.firstIndex(where: { "/?#".contains($0) }).map { authority[$0...] } ?? "/"
        }
        let end = target.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? target.endIndex
        let path = target[..<end]
        return path.isEmpty ? "/" : String(path)
    }
}
