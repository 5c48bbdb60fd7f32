public import Foundation

/// A client certificate the app gives the embedded view for servers that ask for one in the TLS
/// handshake (certificate-based sign-in: kiosks, service identities, a smart card the app knows):
/// ``WebviewParameters/clientCertificate``.
///
/// The embedded view loads it when the session prepares (a file that cannot be read, or holds no
/// private key, ends the session at once with `invalidParameters`) and offers it, for that session
/// only, to every server of the sign-in that asks for a client certificate. Nothing is written
/// anywhere; ``description`` never shows a PIN or a password.
///
/// ```swift
/// var parameters = WebviewParameters(webviewType: .embedded)
/// parameters.clientCertificate = .pem(certificate: URL(fileURLWithPath: "/etc/kiosk/client.pem"))
/// ```
public struct ClientCertificate: Hashable, Sendable, CustomStringConvertible {
    /// Where the certificate and its private key are.
    public enum Source: Hashable, Sendable {
        /// A certificate (with its chain, if any) and its private key in PEM files
        /// (`g_tls_certificate_new_from_files`); `privateKey` `nil`: the key is in the certificate's file.
        case pem(certificate: URL, privateKey: URL?)
        /// A PKCS #12 file (`.p12`, `.pfx`) holding the certificate and its key, with its password
        /// (`g_tls_certificate_new_from_pkcs12`).
        case pkcs12(file: URL, password: String?)
        /// An object on a PKCS #11 token (a smart card, a YubiKey's PIV, SoftHSM) through p11-kit's
        /// configured modules: `pkcs11:` URIs (RFC 7512) of the certificate and, if it differs, of its
        /// private key (`g_tls_certificate_new_from_pkcs11_uris`). `pin` answers the token's PIN
        /// request; `nil`: the token needs none.
        case pkcs11(certificate: String, privateKey: String?, pin: String?)
    }

    public var source: Source

    public init(source: Source) { self.source = source }

    /// A certificate and its key in PEM files (`privateKey` `nil`: both in `certificate`).
    public static func pem(certificate: URL, privateKey: URL? = nil) -> ClientCertificate {
        ClientCertificate(source: .pem(certificate: certificate, privateKey: privateKey))
    }

    /// A PKCS #12 file with its password (`nil` for none).
    public static func pkcs12(_ file: URL, password: String? = nil) -> ClientCertificate {
        ClientCertificate(source: .pkcs12(file: file, password: password))
    }

    /// A certificate on a PKCS #11 token: its `pkcs11:` URI, its private key's when they differ,
    /// and the token's PIN when it asks for one.
    public static func pkcs11(uri: String, privateKeyURI: String? = nil, pin: String? = nil) -> ClientCertificate {
        ClientCertificate(source: .pkcs11(certificate: uri, privateKey: privateKeyURI, pin: pin))
    }

    /// The certificate's `pkcs11:` URI, for one on a token.
    package var pkcs11URI: String? {
        if case .pkcs11(let uri, _, _) = source { uri } else { nil }
    }

    /// Where it is, for logs and messages: paths and URIs, never the PIN or the password.
    public var description: String {
        switch source {
        case .pem(let certificate, let key):
            key.map { "PEM \(certificate.path) (key \($0.path))" } ?? "PEM \(certificate.path)"
        case .pkcs12(let file, _):
            "PKCS #12 \(file.path)"
        case .pkcs11(let certificate, let key, _):
            key.map { "PKCS #11 \(Self.withoutPIN(certificate)) (key \(Self.withoutPIN($0)))" }
                ?? "PKCS #11 \(Self.withoutPIN(certificate))"
        }
    }

    /// A `pkcs11:` URI without a `pin-value` attribute (RFC 7512 lets a URI carry the PIN).
    private static func withoutPIN(_ uri: String) -> String {
        guard let query = uri.firstIndex(of: "?") else { return uri }
        let kept = uri[uri.index(after: query)...].split(separator: "&")
            .filter { !$0.lowercased().hasPrefix("pin-value=") }
        return kept.isEmpty ? String(uri[..<query]) : String(uri[..<query]) + "?" + kept.joined(separator: "&")
    }
}

/// A sign-in server asked for a client certificate and the app gave none in
/// ``WebviewParameters/clientCertificate``: what ``WebviewParameters/clientCertificateChooser`` gets.
public struct ClientCertificateRequest: Sendable {
    /// The host that asks (`login.example.com`).
    public let host: String
    /// The certificates on the person's PKCS #11 tokens usable for client authentication and not
    /// expired (what the library's chooser would list); may be empty.
    public let candidates: [Candidate]

    public init(host: String, candidates: [Candidate]) {
        self.host = host
        self.candidates = candidates
    }

    /// A certificate on one of the person's tokens.
    public struct Candidate: Hashable, Sendable {
        /// RFC 4514 distinguished names.
        public let subject: String
        public let issuer: String
        public let notAfter: Date
        /// The label of the token holding it.
        public let tokenLabel: String
        /// Its `pkcs11:` URI, and its private key's.
        public let certificateURI: String
        public let privateKeyURI: String

        public init(subject: String, issuer: String, notAfter: Date, tokenLabel: String, certificateURI: String, privateKeyURI: String) {
            self.subject = subject
            self.issuer = issuer
            self.notAfter = notAfter
            self.tokenLabel = tokenLabel
            self.certificateURI = certificateURI
            self.privateKeyURI = privateKeyURI
        }

        /// This certificate as an answer (the library's PIN dialog asks for the token's PIN).
        public var certificate: ClientCertificate { .pkcs11(uri: certificateURI, privateKeyURI: privateKeyURI) }
    }
}

/// The app's own answer to a server asking for a client certificate, instead of the library's
/// chooser: called on the main thread; return a certificate (one of the candidates', or any
/// other), or `nil` to end the sign-in with `userCanceled`.
public typealias ClientCertificateChooser = @MainActor @Sendable (ClientCertificateRequest) async -> ClientCertificate?
