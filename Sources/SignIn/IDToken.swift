import Foundation
import WebviewHost

/// A JWS in compact serialization (RFC 7515 section 7.1), split and decoded but not yet trusted.
struct IDToken: Sendable {
    /// The header's `alg`.
    let algorithm: String
    /// The header's `kid`, when present.
    let keyID: String?
    /// The decoded claims JSON.
    let payload: Data
    /// `ASCII(BASE64URL(header) || '.' || BASE64URL(payload))`: the bytes the signature covers.
    let signingInput: Data
    let signature: Data
    /// The token as received.
    let raw: String

    init(_ raw: String) throws(IDTokenValidationError) {
        let parts = raw.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw IDTokenValidationError(
                .malformed, "The ID token is not a signed JWT (it has \(parts.count) parts, not 3).")
        }
        guard let headerData = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else {
            throw IDTokenValidationError(.malformed, "The ID token is not valid base64url.")
        }
        guard let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let algorithm = header["alg"] as? String
        else {
            throw IDTokenValidationError(.malformed, "The ID token's header is not a JSON object with an \"alg\".")
        }
        if header["crit"] != nil {
            throw IDTokenValidationError(.malformed, "The ID token's header has critical extensions (\"crit\"), which are not supported.")
        }
        if let keyID = header["kid"], !(keyID is String) {
            throw IDTokenValidationError(.malformed, "The ID token's header has a \"kid\" that is not a string.")
        }
        self.algorithm = algorithm
        keyID = header["kid"] as? String
        self.payload = payload
        signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        self.signature = signature
        self.raw = raw
    }
}
