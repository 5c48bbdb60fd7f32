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
}
