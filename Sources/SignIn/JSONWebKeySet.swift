import WebviewHost
import Foundation

/// An issuer's public signing keys, as served at its `jwks_uri` (RFC 7517 section 5).
/// Keys of types this library does not know are kept out, not failed on.
struct JSONWebKeySet: Sendable {
    let keys: [JSONWebKey]

    init(keys: [JSONWebKey]) {
        self.keys = keys
    }

    init(json: Data) throws(WebAuthError) {
        struct Lenient: Decodable {
            var keys: [FailableKey]
        }
        struct FailableKey: Decodable {
            var key: JSONWebKey?
            init(from decoder: any Decoder) throws {
                key = try? JSONWebKey(from: decoder)
            }
        }
        do {
            keys = try JSONDecoder().decode(Lenient.self, from: json).keys.compactMap(\.key)
                .filter { $0.kty == "RSA" || $0.kty == "EC" }
        } catch {
            throw WebAuthError(.invalidResponse, "The issuer's key set (JWKS) is not valid JSON with a \"keys\" array.", underlyingError: error)
        }
    }

    /// The keys that may verify a token signed with `algorithm` and `keyID`: the one with that
    /// `kid`, or, when the token names none, every key that fits the algorithm.
    func candidates(algorithm: String, keyID: String?) -> [JSONWebKey] {
        keys.filter { key in
            guard key.canVerify(algorithm) else { return false }
            if let keyID { return key.kid == keyID }
            return true
        }
    }
}
