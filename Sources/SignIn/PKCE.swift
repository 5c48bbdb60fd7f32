import Crypto
import Foundation
import WebviewHost

/// Proof Key for Code Exchange (RFC 7636) with the S256 method: a random verifier kept by the
/// app, and its SHA-256 challenge sent with the authorization request.
struct PKCE: Sendable, Hashable {
    /// Sent only to the token endpoint.
    let verifier: String
    /// `BASE64URL(SHA256(ASCII(verifier)))`, sent with the authorization request.
    let challenge: String
    /// Always `S256`; `plain` is never used.
    let method = "S256"

    /// A new pair with a 43-character verifier (32 random bytes, the RFC's recommendation).
    init() {
        self.init(verifier: RandomValue.make(byteCount: 32))
    }

    /// The pair for a known verifier (tests reproduce RFC 7636 appendix B with it).
    init(verifier: String) {
        self.verifier = verifier
        challenge = Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }
}
