import Crypto
import Foundation
import ScenarioSupport
import WebviewHost
import _CryptoExtras

@testable import SignIn

/// Signs ID tokens in tests with keys made here, and serves their key set.
enum TestTokenSigner {
    /// The RSA keys come from files (Tests/Fixtures/TokenSigner): making them here held a
    /// cooperative-pool thread for over 10 s in a debug build.
    static let rsaKey = rsaKey(named: "rsa-test")
    static let otherRSAKey = rsaKey(named: "rsa-other")

    private static func rsaKey(named name: String) -> _RSA.Signing.PrivateKey {
        let file = Checkout.fixture("TokenSigner").appendingPathComponent(name + ".pem")
        return try! _RSA.Signing.PrivateKey(pemRepresentation: String(contentsOf: file, encoding: .utf8))
    }
    private static let ecKeyBytes = P256.Signing.PrivateKey().rawRepresentation
    static var ecKey: P256.Signing.PrivateKey { try! P256.Signing.PrivateKey(rawRepresentation: ecKeyBytes) }

    /// The JWKS a provider would serve for ``rsaKey`` (kid `rsa-test`) and ``ecKey`` (kid `ec-test`).
    static var keySetJSON: Data {
        let primitives = try! rsaKey.publicKey.getKeyPrimitives()
        let point = ecKey.publicKey.rawRepresentation
        let keys: [[String: String]] = [
            ["kty": "RSA", "kid": "rsa-test", "alg": "RS256", "use": "sig",
             "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent)],
            ["kty": "EC", "kid": "ec-test", "crv": "P-256", "use": "sig",
             "x": Base64URL.encode(point.prefix(32)), "y": Base64URL.encode(point.suffix(32))],
            ["kty": "oct", "kid": "hmac", "k": "c2VjcmV0"],  // unknown to the verifier: ignored
        ]
        return try! JSONSerialization.data(withJSONObject: ["keys": keys])
    }

    static var keySet: JSONWebKeySet { try! JSONWebKeySet(json: keySetJSON) }

    /// A compact JWS over `claims`, signed as `algorithm` says (`RS256`, `ES256`; anything else
    /// is left unsigned with that `alg`).
    static func token(
        _ claims: [String: Any], algorithm: String = "RS256", keyID: String? = nil,
        rsa: _RSA.Signing.PrivateKey = rsaKey
    ) -> String {
        var header: [String: Any] = ["alg": algorithm, "typ": "JWT"]
        header["kid"] = keyID ?? (algorithm == "ES256" ? "ec-test" : "rsa-test")
        let encodedHeader = Base64URL.encode(try! JSONSerialization.data(withJSONObject: header, options: .sortedKeys))
        let encodedClaims = Base64URL.encode(try! JSONSerialization.data(withJSONObject: claims, options: .sortedKeys))
        let input = Data("\(encodedHeader).\(encodedClaims)".utf8)
        let signature: Data
        switch algorithm {
        case "RS256":
            signature = try! rsa.signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation
        case "ES256":
            signature = try! ecKey.signature(for: SHA256.hash(data: input)).rawRepresentation
        default:
            signature = Data()
        }
        return "\(encodedHeader).\(encodedClaims).\(Base64URL.encode(signature))"
    }
}
