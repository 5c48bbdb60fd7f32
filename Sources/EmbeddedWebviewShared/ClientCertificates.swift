#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// The client certificate a session offers to servers that ask for one in the TLS handshake
/// (`CLIENT_CERTIFICATE_REQUESTED`), and the PIN its token asks for
/// (`CLIENT_CERTIFICATE_PIN_REQUESTED`): the app's ``ClientCertificate``, loaded when the session
/// prepares. The answer is never stored (`WEBKIT_CREDENTIAL_PERSISTENCE_NONE`): a caller's view,
/// and the library's next sessions, do not offer it after this session.
@MainActor
struct ClientCertificates {
    /// What the app gave, as GIO loaded it.
    private(set) var certificate: GObjectRef<UnsafeMutablePointer<GTlsCertificate>>?
    let given: ClientCertificate?
    /// The hosts it was offered to in this session.
    var offeredTo: Set<String> = []
    /// The app's PIN was given to the token once already.
    var pinGiven = false

    /// No certificate: a server that asks ends the session.
    init() { given = nil }

    /// Loads `given` (GIO's `g_tls_certificate_new_from_*`); throws `invalidParameters` saying
    /// which file or URI could not be used and why (unreadable, not a certificate, no private key,
    /// a wrong PKCS #12 password).
    init(given: ClientCertificate?) throws(WebAuthError) {
        self.given = given
        guard let given else { return }
        do throws(GLibError) {
            let loaded: UnsafeMutablePointer<GTlsCertificate>? = switch given.source {
            case .pem(let certificate, let key):
                // With no key file, the key must be in the certificate's file: reading that file as
                // both says "no private key" for a certificate alone.
                try withGError { g_tls_certificate_new_from_files(certificate.path, (key ?? certificate).path, $0) }
            case .pkcs12(let file, let password):
                try withGError { g_tls_certificate_new_from_file_with_password(file.path, password ?? "", $0) }
            case .pkcs11(let certificate, let key, _):
                try withGError { g_tls_certificate_new_from_pkcs11_uris(certificate, key, $0) }
            }
            guard let loaded else { throw GLibError(domain: "g-tls-error-quark", code: 0, message: "no certificate") }
            certificate = GObjectRef(adopting: loaded)
        } catch {
            throw WebAuthError(
                .invalidParameters,
                "The client certificate the app gave (\(given)) cannot be used: \(error.message). "
                    + "Give a certificate with its private key (WebviewParameters.clientCertificate).",
                underlyingError: error)
        }
    }
}

extension EmbeddedWebviewSession {
    /// A server asks for a client certificate: the app's, if it gave one; otherwise the session
    /// ends with `clientCertificateRequired` (and the request is cancelled), not with the load
    /// failure WebKit's default answer (no certificate) would bring.
    func clientCertificateRequested(_ request: WebKitDifferences.AuthenticationRequest) -> Bool {
        let host = webkit_authentication_request_get_host(request).map { String(cString: $0) } ?? ""
        guard let certificate = clientCertificates.certificate else {
            webkit_authentication_request_cancel(request)
            window?.loadEnded()
            reporter.fail(WebAuthError(
                .clientCertificateRequired,
                "The sign-in server \(host) asked for a client certificate (certificate-based sign-in, a smart card) "
                    + "and the app gave none. Give one in WebviewParameters.clientCertificate, or sign in with the system browser.",
                url: loading ?? requested))
            return true
        }
        clientCertificates.offeredTo.insert(host)
        let credential = webkit_credential_new_for_certificate(certificate.pointer, WEBKIT_CREDENTIAL_PERSISTENCE_NONE)
        webkit_authentication_request_authenticate(request, credential)
        webkit_credential_free(credential)
        return true
    }

    /// The token holding the app's certificate asks for its PIN: the app's PIN, once; a token that
    /// asks again refused it, and the session ends with `clientCertificateRequired` saying so (the
    /// token's "final try" warning included) before a wrong PIN is tried again and locks it.
    func clientCertificatePINRequested(_ request: WebKitDifferences.AuthenticationRequest) -> Bool {
        let flags = webkit_authentication_request_get_certificate_pin_flags(request).rawValue
        let pin: String? = if case .pkcs11(_, _, let pin) = clientCertificates.given?.source { pin } else { nil }
        let retry = flags & G_TLS_PASSWORD_RETRY.rawValue != 0 || clientCertificates.pinGiven
        if let pin, !retry {
            clientCertificates.pinGiven = true
            let credential = webkit_credential_new_for_certificate_pin(pin, WEBKIT_CREDENTIAL_PERSISTENCE_NONE)
            webkit_authentication_request_authenticate(request, credential)
            webkit_credential_free(credential)
            return true
        }
        webkit_authentication_request_cancel(request)
        window?.loadEnded()
        let certificate = clientCertificates.given.map(\.description) ?? "the client certificate"
        let why: String
        if pin == nil {
            why = "the token holding \(certificate) asked for its PIN and the app gave none (ClientCertificate.pkcs11(uri:pin:))."
        } else if flags & G_TLS_PASSWORD_FINAL_TRY.rawValue != 0 {
            why = "the token holding \(certificate) refused the app's PIN; one more wrong PIN locks it. Check the PIN before trying again."
        } else {
            why = "the token holding \(certificate) refused the app's PIN. Check the PIN the app gives."
        }
        reporter.fail(WebAuthError(
            .clientCertificateRequired, "The sign-in server asked for a client certificate, and " + why,
            url: loading ?? requested))
        return true
    }
}
