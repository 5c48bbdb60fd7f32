import Foundation
import WebviewHost

/// Microsoft Entra ID's and AD FS's device challenge ([MS-PKAP] 3.2.5.1.2): a navigation to
/// `urn:http-auth:PKeyAuth?SubmitUrl=..&nonce=..&Context=..&Version=..&CertAuthorities=..`, which a
/// browser cannot load. The embedded view answers it as MSAL's web view does on a device with no
/// registered device key: it requests `SubmitUrl` with `Authorization: PKeyAuth Context="..",
/// Version=".."`, which lets the sign-in go on (device-based Conditional Access then decides). No
/// key is ever used and nothing but the challenge's own `Context` and `Version` is sent.
struct PKeyAuthChallenge: Equatable {
    /// Where the answer goes (https, or http on a loopback address).
    let submitURL: URL
    let context: String
    let version: String

    /// Whether `url` is a device challenge (whatever its parameters).
    static func isChallenge(_ url: URL) -> Bool {
        url.scheme?.lowercased() == "urn" && url.absoluteString.lowercased().hasPrefix("urn:http-auth:pkeyauth")
    }

    /// Reads the challenge; throws `invalidResponse` saying what is wrong with a malformed or
    /// unsafe one (no SubmitUrl or Context, a SubmitUrl that is not https or loopback http, a
    /// value that would break out of the header).
    init(_ url: URL) throws(WebAuthError) {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? {
            items.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        func refuse(_ why: String) -> WebAuthError {
            WebAuthError(
                .invalidResponse,
                "The sign-in page sent a device challenge (PKeyAuth) that cannot be answered: \(why). "
                    + "The sign-in was stopped; ask the identity provider's administrator.")
        }
        guard let submit = value("SubmitUrl"), !submit.isEmpty else { throw refuse("it names no SubmitUrl") }
        guard let submitURL = URL(string: submit), let scheme = submitURL.scheme?.lowercased() else {
            throw refuse("its SubmitUrl is not a URL")
        }
        guard scheme == "https" || (scheme == "http" && submitURL.isLoopbackHTTP) else {
            throw refuse("its SubmitUrl (\(scheme):) is neither https nor http on this machine")
        }
        guard submitURL.host?.isEmpty == false else { throw refuse("its SubmitUrl names no host") }
        guard let context = value("Context"), !context.isEmpty else { throw refuse("it has no Context") }
        let version = value("Version").flatMap { $0.isEmpty ? nil : $0 } ?? "1.0"
        // A quoted-string of the header: no quote, backslash or control character may end it early.
        let unsafe = { (text: String) in text.unicodeScalars.contains { $0 == "\"" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7f } }
        guard !unsafe(context), !unsafe(version) else { throw refuse("its Context or Version holds characters a header cannot carry") }
        self.submitURL = submitURL
        self.context = context
        self.version = version
    }

    /// The answer of a device without a registered key ([MS-PKAP] 3.2.5.1.3, as MSAL sends it).
    var authorization: String { "PKeyAuth Context=\"\(context)\", Version=\"\(version)\"" }

    /// The challenge of a `401` whose `WWW-Authenticate` is `PKeyAuth Nonce="..", Context="..",
    /// Version="..", CertAuthorities=".."` ([MS-PKAP] 3.2.5.1.1): answered at the URL that
    /// answered 401 (`url`, which must be https or loopback http). `nil` when the header has no
    /// PKeyAuth challenge; throws as the redirect form does for a malformed one.
    init?(wwwAuthenticate header: String, url: URL) throws(WebAuthError) {
        guard let start = header.range(of: "pkeyauth", options: [.caseInsensitive]),
            start.lowerBound == header.startIndex || ", ".contains(header[header.index(before: start.lowerBound)])
        else { return nil }
        var parameters: [(String, String)] = []
        // name="value" pairs after the scheme (quoted values may hold commas).
        var rest = Substring(header[start.upperBound...])
        while let equals = rest.firstIndex(of: "=") {
            let name = rest[..<equals].trimmingCharacters(in: CharacterSet(charactersIn: ", \t"))
            var value = ""
            var index = rest.index(after: equals)
            if index < rest.endIndex, rest[index] == "\"" {
                index = rest.index(after: index)
                while index < rest.endIndex, rest[index] != "\"" {
                    value.append(rest[index])
                    index = rest.index(after: index)
                }
                if index < rest.endIndex { index = rest.index(after: index) }
            } else {
                while index < rest.endIndex, rest[index] != "," {
                    value.append(rest[index])
                    index = rest.index(after: index)
                }
            }
            if name.contains(" ") { break }  // the next scheme's token
            parameters.append((name, value))
            rest = rest[index...]
        }
        var components = URLComponents()
        components.queryItems = [URLQueryItem(name: "SubmitUrl", value: url.absoluteString)]
            + parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        guard let challenge = URL(string: "urn:http-auth:PKeyAuth?" + (components.percentEncodedQuery ?? "")) else {
            throw WebAuthError(.invalidResponse, "The sign-in page sent a device challenge (PKeyAuth) that cannot be read.")
        }
        try self.init(challenge)
    }
}
