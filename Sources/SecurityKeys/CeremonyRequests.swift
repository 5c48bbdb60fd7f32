internal import Crypto

/// What a site asks a key to make (WebAuthn's `PublicKeyCredentialCreationOptions`, after the
/// library checked the origin and built `clientDataJSON`): CTAP2's authenticatorMakeCredential.
public struct CredentialCreationRequest: Sendable {
    public var clientDataHash: [UInt8]
    public var relyingParty: RelyingParty
    public var user: UserEntity
    /// COSE algorithms in the site's order of preference (ES256 is -7).
    public var algorithms: [Int32]
    public var excludeCredentials: [[UInt8]]
    /// A discoverable credential (a passkey): stored on the key with its user.
    public var residentKey: Bool
    public var userVerification: UserVerification

    public init(
        clientDataHash: [UInt8], relyingParty: RelyingParty, user: UserEntity, algorithms: [Int32] = [-7],
        excludeCredentials: [[UInt8]] = [], residentKey: Bool = false, userVerification: UserVerification = .preferred
    ) {
        self.clientDataHash = clientDataHash
        self.relyingParty = relyingParty
        self.user = user
        self.algorithms = algorithms
        self.excludeCredentials = excludeCredentials
        self.residentKey = residentKey
        self.userVerification = userVerification
    }
}

/// What a site asks a key to sign (`PublicKeyCredentialRequestOptions`): CTAP2's
/// authenticatorGetAssertion.
public struct AssertionRequest: Sendable {
    public var relyingPartyID: String
    public var clientDataHash: [UInt8]
    /// Empty: the key's discoverable credentials for the site.
    public var allowCredentials: [[UInt8]]
    public var userVerification: UserVerification

    public init(relyingPartyID: String, clientDataHash: [UInt8], allowCredentials: [[UInt8]] = [], userVerification: UserVerification = .preferred) {
        self.relyingPartyID = relyingPartyID
        self.clientDataHash = clientDataHash
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
    }
}

public struct RelyingParty: Sendable, Hashable {
    public var id: String
    public var name: String?
    public init(id: String, name: String? = nil) {
        self.id = id
        self.name = name
    }
}

public struct UserEntity: Sendable, Hashable {
    public var id: [UInt8]
    public var name: String?
    public var displayName: String?
    public init(id: [UInt8], name: String? = nil, displayName: String? = nil) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}

/// WebAuthn's `userVerification`.
public enum UserVerification: String, Sendable {
    case required, preferred, discouraged
}

/// A credential a key made.
public struct MadeCredential: Sendable {
    public let credentialID: [UInt8]
    /// The authenticator data, as the key signed it.
    public let authenticatorData: [UInt8]
    /// The attestation statement's format (`packed`, `fido-u2f`, `none`).
    public let format: String
    /// The attestation statement, CBOR as the key sent it.
    public let attestationStatement: [UInt8]
    /// The COSE algorithm of the credential's key.
    public let algorithm: Int32
    /// Whether the key stored it as a discoverable credential.
    public let residentKey: Bool
    /// The credential's public key as libfido2 gives it (ES256: x and y, 64 bytes).
    public let publicKey: [UInt8]

    /// The public key as SubjectPublicKeyInfo DER (`getPublicKey()`), for ES256; `nil` otherwise.
    public var publicKeyDER: [UInt8]? {
        guard algorithm == -7, let key = try? P256.Signing.PublicKey(rawRepresentation: publicKey) else { return nil }
        return Array(key.derRepresentation)
    }

    /// WebAuthn's `attestationObject`: `{"fmt", "attStmt", "authData"}` in CTAP2's canonical order.
    public var attestationObject: [UInt8] {
        var bytes: [UInt8] = [0xA3]
        bytes += CBORHead.text("fmt") + CBORHead.text(format)
        bytes += CBORHead.text("attStmt") + attestationStatement
        bytes += CBORHead.text("authData") + CBORHead.bytes(authenticatorData)
        return bytes
    }
}

/// One signature a key made (a key may answer several, one per discoverable credential).
public struct SignedAssertion: Sendable {
    public let credentialID: [UInt8]
    public let authenticatorData: [UInt8]
    public let signature: [UInt8]
    /// Discoverable credentials only: the user the site stored with it.
    public let userHandle: [UInt8]?
    public let userName: String?
    public let userDisplayName: String?
}

/// The few CBOR heads the attestation object needs around what the key sent.
enum CBORHead {
    static func head(major: UInt8, _ count: Int) -> [UInt8] {
        let type = major << 5
        switch count {
        case ..<24: return [type | UInt8(count)]
        case ..<0x100: return [type | 24, UInt8(count)]
        case ..<0x1_0000: return [type | 25, UInt8(count >> 8), UInt8(count & 0xFF)]
        default: return [type | 26] + (0..<4).reversed().map { UInt8((count >> ($0 * 8)) & 0xFF) }
        }
    }

    static func text(_ string: String) -> [UInt8] { head(major: 3, string.utf8.count) + Array(string.utf8) }
    static func bytes(_ data: [UInt8]) -> [UInt8] { head(major: 2, data.count) + data }

    /// The content of a CBOR byte string (libfido2 hands some fields over wrapped in one).
    static func unwrapBytes(_ data: [UInt8]) -> [UInt8]? {
        guard let first = data.first, first >> 5 == 2 else { return nil }
        let info = Int(first & 0x1F)
        let (length, headLength): (Int, Int)
        switch info {
        case ..<24: (length, headLength) = (info, 1)
        case 24 where data.count >= 2: (length, headLength) = (Int(data[1]), 2)
        case 25 where data.count >= 3: (length, headLength) = (Int(data[1]) << 8 | Int(data[2]), 3)
        case 26 where data.count >= 5: (length, headLength) = (data[1...4].reduce(0) { $0 << 8 | Int($1) }, 5)
        default: return nil
        }
        guard data.count == headLength + length else { return nil }
        return Array(data[headLength...])
    }
}
