import Crypto
import Foundation
import WebviewHost

/// Unguessable protocol values (`state`, `nonce`, PKCE verifiers) from the system's
/// cryptographic random source.
enum RandomValue {
    /// `byteCount` random bytes as base64url text (32 bytes give 43 characters, 256 bits).
    static func make(byteCount: Int = 32) -> String {
        let key = SymmetricKey(size: SymmetricKeySize(bitCount: byteCount * 8))
        return key.withUnsafeBytes { Base64URL.encode($0) }
    }
}
