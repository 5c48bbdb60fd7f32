import Crypto

/// The X.509 certificate of the U2F attestation key: self-signed, made once per authenticator
/// with a few DER writers (no certificate library is a dependency of the test kit).
enum AttestationCertificate {
    static func make(key keyBytes: P256KeyBytes) -> [UInt8] {
        guard let key = try? keyBytes.signingKey() else { return [] }
        let signatureAlgorithm = sequence(objectIdentifier([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]))  // ecdsa-with-SHA256
        let name = sequence(
            tlv(0x31, sequence(objectIdentifier([0x55, 0x04, 0x03]), tlv(0x0c, Array("WebviewHost Virtual Authenticator".utf8)))))
        let validity = sequence(tlv(0x17, Array("250101000000Z".utf8)), tlv(0x18, Array("20991231235959Z".utf8)))
        let publicKeyInfo = sequence(
            sequence(
                objectIdentifier([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]),  // id-ecPublicKey
                objectIdentifier([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07])),  // prime256v1
            tlv(0x03, [0] + Array(key.publicKey.x963Representation)))
        // basicConstraints (not critical): CA false.
        let extensions = tlv(0xa3, sequence(sequence(objectIdentifier([0x55, 0x1d, 0x13]), tlv(0x04, sequence()))))
        let serial = tlv(0x02, [0x01] + CTAPHIDConnection.randomBytes(8))
        let toBeSigned = sequence(
            tlv(0xa0, tlv(0x02, [0x02])), serial, signatureAlgorithm, name, validity, name, publicKeyInfo, extensions)
        let signature = (try? key.signature(for: toBeSigned).derRepresentation).map(Array.init) ?? []
        return sequence(toBeSigned, signatureAlgorithm, tlv(0x03, [0] + signature))
    }

    private static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        let length: [UInt8] =
            switch content.count {
            case 0..<0x80: [UInt8(content.count)]
            case 0x80...0xff: [0x81, UInt8(content.count)]
            default: [0x82, UInt8(content.count >> 8), UInt8(content.count & 0xff)]
            }
        return [tag] + length + content
    }

    private static func sequence(_ parts: [UInt8]...) -> [UInt8] { tlv(0x30, parts.flatMap { $0 }) }

    private static func objectIdentifier(_ encoded: [UInt8]) -> [UInt8] { tlv(0x06, encoded) }
}
