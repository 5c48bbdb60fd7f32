import Crypto
import _CryptoExtras

/// What a PIN may be: 4 to 63 bytes of UTF-8 (CTAP 2.1 §6.5.5.5; code points counted as bytes
/// here, stricter only for PINs outside ASCII).
enum ClientPINPolicy {
    static func isAcceptable(_ pin: [UInt8]) -> Bool {
        (4...63).contains(pin.count) && String(validating: pin, as: UTF8.self).map { $0.count >= 4 } == true
    }
}

/// The keys a PIN/UV auth protocol derives from the ECDH shared point (CTAP 2.1 §6.5.6, §6.5.7).
struct PINUVAuthProtocol {
    let version: Int
    let hmacKey: [UInt8]
    let aesKey: [UInt8]

    /// Protocol 1: both keys SHA-256(Z). Protocol 2: HKDF-SHA-256 with a zero salt, one key each.
    init(version: Int, sharedPoint: [UInt8]) {
        self.version = version
        if version == 1 {
            let key = Array(SHA256.hash(data: sharedPoint))
            hmacKey = key
            aesKey = key
        } else {
            func derive(_ info: String) -> [UInt8] {
                HKDF<SHA256>.deriveKey(
                    inputKeyMaterial: SymmetricKey(data: sharedPoint), salt: [UInt8](repeating: 0, count: 32),
                    info: Array(info.utf8), outputByteCount: 32
                ).withUnsafeBytes { Array($0) }
            }
            hmacKey = derive("CTAP2 HMAC key")
            aesKey = derive("CTAP2 AES key")
        }
    }

    /// HMAC-SHA-256 of `message` with `key`: its first 16 bytes in protocol 1, all 32 in 2.
    static func authenticate(version: Int, key: [UInt8], message: [UInt8]) -> [UInt8] {
        let mac = Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        return version == 1 ? Array(mac.prefix(16)) : mac
    }

    func authenticate(_ message: [UInt8]) -> [UInt8] {
        Self.authenticate(version: version, key: hmacKey, message: message)
    }

    /// AES-256-CBC without padding: a zero IV in protocol 1, a random IV first in protocol 2.
    func encrypt(_ plaintext: [UInt8]) throws(CTAP2Failure) -> [UInt8] {
        let iv = version == 1 ? [UInt8](repeating: 0, count: 16) : CTAPHIDConnection.randomBytes(16)
        do {
            let ciphertext = try AES._CBC.encrypt(
                plaintext, using: SymmetricKey(data: aesKey), iv: AES._CBC.IV(ivBytes: iv), noPadding: true)
            return (version == 1 ? [] : iv) + Array(ciphertext)
        } catch {
            throw .status(CTAP2Status.other)
        }
    }

    func decrypt(_ ciphertext: [UInt8]) throws(CTAP2Failure) -> [UInt8] {
        let ivLength = version == 1 ? 0 : 16
        guard ciphertext.count > ivLength, (ciphertext.count - ivLength) % 16 == 0 else {
            throw .status(CTAP2Status.invalidParameter)
        }
        let iv = version == 1 ? [UInt8](repeating: 0, count: 16) : Array(ciphertext.prefix(16))
        do {
            return Array(
                try AES._CBC.decrypt(
                    ciphertext.dropFirst(ivLength), using: SymmetricKey(data: aesKey), iv: AES._CBC.IV(ivBytes: iv),
                    noPadding: true))
        } catch {
            throw .status(CTAP2Status.invalidParameter)
        }
    }
}
