import CGnuTLS
import Foundation

/// A certificate on one of the person's PKCS #11 tokens that can sign them in to a server asking
/// for a client certificate: what the chooser shows and the `pkcs11:` URIs GIO loads it from.
struct TokenCertificate: Hashable, Sendable {
    /// The certificate's `pkcs11:` URI (GnuTLS's generic form: token, id, object, `type=cert`).
    var certificateURI: String
    /// Its private key's: the same object id on the same token, `type=private`.
    var keyURI: String
    /// RFC 4514 distinguished names, as GnuTLS writes them.
    var subject: String
    var issuer: String
    var notAfter: Date
    /// The token's label ("PIV_II", "SoftHSM token"...).
    var tokenLabel: String

    /// The subject's common name, else the whole subject.
    var name: String { Self.commonName(subject) ?? subject }
    /// The issuer's common name, else the whole issuer.
    var issuerName: String { Self.commonName(issuer) ?? issuer }

    private static func commonName(_ dn: String) -> String? {
        dn.split(separator: ",").lazy.map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.uppercased().hasPrefix("CN=") }.map { String($0.dropFirst(3)) }
    }
}

/// The certificates on the person's tokens (every module p11-kit is configured with: OpenSC's
/// smart cards, a YubiKey's PIV, SoftHSM), through GnuTLS's PKCS #11 calls. Blocking (a card
/// reader can be slow): called off the main thread.
enum TokenCertificates {
    /// The certificates usable for TLS client authentication now: not a CA's or a trust anchor
    /// (p11-kit's trust module lists the system's), valid at `date`, and, when they name their
    /// purposes, for client authentication with a key that may sign.
    /// Whether the token holding the object at `uri` (a `pkcs11:` URI) is locked: it refused too
    /// many PINs (`CKF_USER_PIN_LOCKED`), and only its administrator can unlock it. Blocking.
    static func isLocked(tokenOf uri: String) -> Bool {
        var flags: UInt32 = 0
        guard gnutls_pkcs11_token_get_flags(uri, &flags) >= 0 else { return false }
        return flags & UInt32(GNUTLS_PKCS11_TOKEN_USER_PIN_LOCKED) != 0
    }

    static func list(at date: Date = Date()) -> [TokenCertificate] {
        var objects: UnsafeMutablePointer<gnutls_pkcs11_obj_t?>?
        var count: UInt32 = 0
        let flags = GNUTLS_PKCS11_OBJ_FLAG_CRT.rawValue
        guard gnutls_pkcs11_obj_list_import_url4(&objects, &count, "pkcs11:", flags) >= 0, let objects else { return [] }
        defer {
            for index in 0..<Int(count) { gnutls_pkcs11_obj_deinit(objects[index]) }
            wvh_gnutls_free(objects)
        }
        return (0..<Int(count)).compactMap { index in objects[index].flatMap { certificate(from: $0, at: date) } }
    }

    private static func certificate(from object: gnutls_pkcs11_obj_t, at date: Date) -> TokenCertificate? {
        var marks: UInt32 = 0
        gnutls_pkcs11_obj_get_flags(object, &marks)
        let trustMarks = GNUTLS_PKCS11_OBJ_FLAG_MARK_CA.rawValue | GNUTLS_PKCS11_OBJ_FLAG_MARK_TRUSTED.rawValue
            | GNUTLS_PKCS11_OBJ_FLAG_MARK_DISTRUSTED.rawValue
        guard marks & trustMarks == 0 else { return nil }
        var crt: gnutls_x509_crt_t?
        guard gnutls_x509_crt_init(&crt) >= 0, let crt else { return nil }
        defer { gnutls_x509_crt_deinit(crt) }
        guard gnutls_x509_crt_import_pkcs11(crt, object) >= 0 else { return nil }
        // A CA's certificate signs others; it does not sign a person in.
        var critical: UInt32 = 0
        guard gnutls_x509_crt_get_ca_status(crt, &critical) <= 0 else { return nil }
        let notBefore = Date(timeIntervalSince1970: TimeInterval(gnutls_x509_crt_get_activation_time(crt)))
        let notAfter = Date(timeIntervalSince1970: TimeInterval(gnutls_x509_crt_get_expiration_time(crt)))
        guard notBefore <= date, date < notAfter else { return nil }
        guard allowsClientAuthentication(crt) else { return nil }
        guard let uri = exportedURI(object) else { return nil }
        return TokenCertificate(
            certificateURI: uri, keyURI: privateKeyURI(for: uri),
            subject: distinguishedName { gnutls_x509_crt_get_dn3(crt, $0, 0) } ?? "",
            issuer: distinguishedName { gnutls_x509_crt_get_issuer_dn3(crt, $0, 0) } ?? "",
            notAfter: notAfter,
            tokenLabel: info(object, GNUTLS_PKCS11_OBJ_TOKEN_LABEL) ?? "")
    }

    /// Extended key usage absent, or naming TLS client authentication (or any purpose); key
    /// usage absent, or allowing digital signatures.
    private static func allowsClientAuthentication(_ crt: gnutls_x509_crt_t) -> Bool {
        var usage: UInt32 = 0
        var critical: UInt32 = 0
        if gnutls_x509_crt_get_key_usage(crt, &usage, &critical) >= 0, usage & UInt32(GNUTLS_KEY_DIGITAL_SIGNATURE) == 0 {
            return false
        }
        var purposes: [String] = []
        for index in 0..<UInt32(32) {
            var buffer = [CChar](repeating: 0, count: 128)
            var size = buffer.count
            guard gnutls_x509_crt_get_key_purpose_oid(crt, index, &buffer, &size, &critical) >= 0 else { break }
            purposes.append(text(buffer))
        }
        return purposes.isEmpty || purposes.contains("1.3.6.1.5.5.7.3.2") || purposes.contains("2.5.29.37.0")
    }

    private static func exportedURI(_ object: gnutls_pkcs11_obj_t) -> String? {
        var url: UnsafeMutablePointer<CChar>?
        guard gnutls_pkcs11_obj_export_url(object, GNUTLS_PKCS11_URL_GENERIC, &url) >= 0, let url else { return nil }
        defer { wvh_gnutls_free(url) }
        return String(cString: url)
    }

    /// The key beside a certificate: the same URI with `type=private` for `type=cert`.
    static func privateKeyURI(for certificateURI: String) -> String {
        let attributes = certificateURI.dropFirst("pkcs11:".count).split(separator: ";", omittingEmptySubsequences: false)
            .filter { !$0.lowercased().hasPrefix("type=") }
        return "pkcs11:" + (attributes + ["type=private"]).joined(separator: ";")
    }

    private static func distinguishedName(_ read: (UnsafeMutablePointer<gnutls_datum_t>) -> Int32) -> String? {
        var datum = gnutls_datum_t()
        guard read(&datum) >= 0, let data = datum.data else { return nil }
        defer { wvh_gnutls_free(data) }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(datum.size)), as: UTF8.self)
    }

    private static func info(_ object: gnutls_pkcs11_obj_t, _ kind: gnutls_pkcs11_obj_info_t) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        guard gnutls_pkcs11_obj_get_info(object, kind, &buffer, &size) >= 0 else { return nil }
        return text(buffer).trimmingCharacters(in: .whitespaces)
    }

    /// A C string in `buffer`, up to its terminating zero.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
