// libFuzzer target: RedirectURI on arbitrary URI text (redirect and candidate), and SignIn's
// loopback check on the same text. Built by Tests/Fuzz/run.sh with
// Sources/WebviewHost/RedirectURI.swift, WebAuthError.swift and Sources/SignIn/URL+Loopback.swift.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedirect(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    // "redirect\ncandidate"; a single line is matched against itself and fixed redirects.
    let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    let redirectText = lines[0]
    let candidateText = lines.count > 1 ? lines[1] : lines[0]
    guard let redirectURL = URL(string: redirectText) else { return 0 }
    let candidate = URL(string: candidateText)

    checkLoopback(redirectURL)
    if let candidate { checkLoopback(candidate) }

    let fixed = ["http://127.0.0.1:8080/callback", "http://[::1]/cb", "com.example.app:/oauth2redirect", "https://app.example.com/cb"]
    for text in fixed {
        let redirect = try! RedirectURI(URL(string: text)!)
        if let candidate, redirect.matches(candidate) {
            checkSameEndpoint(redirect.url, candidate)
        }
    }

    guard let redirect = try? RedirectURI(redirectURL) else { return 0 }
    if !redirect.matches(redirectURL) { fatalError("a redirect URI does not match itself: \(redirectText)") }
    if redirect.isLoopback, !redirectURL.isHTTPSOrLoopback {
        fatalError("WebviewHost calls \(redirectText) loopback, SignIn does not")
    }
    if let candidate, redirect.matches(candidate) {
        checkSameEndpoint(redirectURL, candidate)
        if let other = try? RedirectURI(candidate), !other.matches(redirectURL) {
            fatalError("matching is not symmetric: \(redirectText) / \(candidateText)")
        }
    }
    return 0
}

/// Two URLs that match have the same scheme and host (ignoring case) and the same path.
func checkSameEndpoint(_ a: URL, _ b: URL) {
    guard let x = URLComponents(url: a, resolvingAgainstBaseURL: true),
        let y = URLComponents(url: b, resolvingAgainstBaseURL: true)
    else { fatalError("a match between URLs without components: \(a) / \(b)") }
    if x.scheme?.lowercased() != y.scheme?.lowercased() || x.percentEncodedHost?.lowercased() != y.percentEncodedHost?.lowercased() {
        fatalError("matched across scheme or host: \(a) / \(b)")
    }
    let (p, q) = (x.percentEncodedPath, y.percentEncodedPath)
    if p != q, !([p, q].allSatisfy { $0 == "" || $0 == "/" }) { fatalError("matched across paths: \(a) / \(b)") }
}

/// A loopback host SignIn accepts is `localhost`, `[::1]` in some spelling, or a dotted quad
/// in 127.0.0.0/8, checked here without inet_pton.
func checkLoopback(_ url: URL) {
    guard url.scheme?.lowercased() == "http", url.isHTTPSOrLoopback else { return }
    guard let host = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedHost else {
        fatalError("loopback without a host: \(url)")
    }
    if host.lowercased() == "localhost" { return }
    if host.hasPrefix("[") {
        if ipv6Groups(String(host.dropFirst().dropLast())) != [0, 0, 0, 0, 0, 0, 0, 1] {
            fatalError("IPv6 host taken for loopback: \(host)")
        }
        return
    }
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4, parts[0] == "127",
        parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) && Int($0)! <= 255 && ($0 == "0" || !$0.hasPrefix("0")) })
    else { fatalError("host taken for loopback: \(host)") }
}

/// The eight 16-bit groups of an IPv6 literal (`::` and a dotted IPv4 tail expanded), or nil.
func ipv6Groups(_ literal: String) -> [Int]? {
    var text = literal
    if let lastColon = text.lastIndex(of: ":"), text[lastColon...].contains(".") {
        let quad = text[text.index(after: lastColon)...].split(separator: ".", omittingEmptySubsequences: false)
            .map { $0.count <= 3 && $0.allSatisfy(\.isASCII) ? Int($0) : nil }
        guard quad.count == 4, quad.allSatisfy({ $0 != nil && $0! <= 255 }) else { return nil }
        let high = String(quad[0]! << 8 | quad[1]!, radix: 16), low = String(quad[2]! << 8 | quad[3]!, radix: 16)
        text = String(text[...lastColon]) + high + ":" + low
    }
    func groups(_ part: String) -> [Int]? {
        if part.isEmpty { return [] }
        var values: [Int] = []
        for field in part.split(separator: ":", omittingEmptySubsequences: false) {
            guard (1...4).contains(field.count), field.allSatisfy(\.isHexDigit), let value = Int(field, radix: 16) else { return nil }
            values.append(value)
        }
        return values
    }
    let halves = text.components(separatedBy: "::")
    switch halves.count {
    case 1:
        guard let all = groups(halves[0]), all.count == 8 else { return nil }
        return all
    case 2:
        guard let head = groups(halves[0]), let rest = groups(halves[1]), head.count + rest.count <= 7 else { return nil }
        return head + Array(repeating: 0, count: 8 - head.count - rest.count) + rest
    default:
        return nil
    }
}
