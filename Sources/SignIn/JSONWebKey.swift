import Crypto
import Foundation
import WebviewHost
import _CryptoExtras

/// One public key of an issuer's key set (RFC 7517), able to verify JWS signatures
/// (RFC 7518: RS256/384/512 and ES256/384).
struct JSONWebKey: Decodable, Sendable {
    var kty: String
    var kid: String?
    var alg: String?
    var use: String?
    // RSA
    var n: String?
    var e: String?
    // EC
    var crv: String?
    var x: String?
    var y: String?

    /// The algorithms this library verifies; `none` and HMAC never.
    static let supportedAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "ES256", "ES384"]

    /// Whether this key may verify a signature made with `algorithm`.
    func canVerify(_ algorithm: String) -> Bool {
        if let use, use != "sig" { return false }
        if let alg, alg != algorithm { return false }
        switch algorithm {
        case "RS256", "RS384", "RS512": return kty == "RSA"
        case "ES256": return kty == "EC" && crv == "P-256"
        case "ES384": return kty == "EC" && crv == "P-384"
        default: return false
        }
    }

    /// Whether `signature` over `signingInput` verifies with this key under `algorithm`.
    func verify(signature: Data, signingInput: Data, algorithm: String) throws(IDTokenValidationError) -> Bool {
        do {
            switch algorithm {
            case "RS256": return try rsaKey().isValidSignature(.init(rawRepresentation: signature), for: SHA256.hash(data: signingInput), padding: .insecurePKCS1v1_5)
            case "RS384": return try rsaKey().isValidSignature(.init(rawRepresentation: signature), for: SHA384.hash(data: signingInput), padding: .insecurePKCS1v1_5)
            case "RS512": return try rsaKey().isValidSignature(.init(rawRepresentation: signature), for: SHA512.hash(data: signingInput), padding: .insecurePKCS1v1_5)
            case "ES256":
                let (x, y) = try coordinates(size: 32)
                let key = try P256.Signing.PublicKey(rawRepresentation: x + y)
                guard signature.count == 64 else { return false }
                return key.isValidSignature(try .init(rawRepresentation: signature), for: SHA256.hash(data: signingInput))
            case "ES384":
                let (x, y) = try coordinates(size: 48)
                let key = try P384.Signing.PublicKey(rawRepresentation: x + y)
                guard signature.count == 96 else { return false }
                return key.isValidSignature(try .init(rawRepresentation: signature), for: SHA384.hash(data: signingInput))
            default:
                throw IDTokenValidationError(.unsupportedAlgorithm, "The ID token's algorithm \"\(algorithm)\" is not supported.")
            }
        } catch let error as IDTokenValidationError {
            throw error
        } catch {
            throw IDTokenValidationError(.unknownKey, "The issuer's key \(kid.map { "\"\($0)\"" } ?? "") is not a valid \(kty) public key: \(error).")
        }
    }

    private func rsaKey() throws -> _RSA.Signing.PublicKey {
        guard let n = n.flatMap(Base64URL.decode), let e = e.flatMap(Base64URL.decode) else {
            throw IDTokenValidationError(.unknownKey, "The issuer's RSA key \(kid ?? "") has no valid \"n\" and \"e\".")
        }
        let key = try _RSA.Signing.PublicKey(n: n, e: e)
        guard key.keySizeInBits >= 2048 else {
            throw IDTokenValidationError(.unknownKey, "The issuer's RSA key \(kid ?? "") has \(key.keySizeInBits) bits; at least 2048 are required.")
        }
        return key
    }

    private func coordinates(size: Int) throws -> (Data, Data) {
        guard let x = x.flatMap(Base64URL.decode), let y = y.flatMap(Base64URL.decode), x.count == size, y.count == size else {
            throw IDTokenValidationError(.unknownKey, "The issuer's EC key \(kid ?? "") has no valid \"x\" and \"y\".")
        }
        return (x, y)
    }
}
