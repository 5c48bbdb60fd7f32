import Crypto
import Foundation

/// A P-256 private key kept as its 32-byte scalar: swift-crypto's key types are not `Sendable`
/// here, and the state they live in crosses threads. The same scalar serves signing and ECDH.
struct P256KeyBytes: Sendable, Hashable {
    let rawRepresentation: [UInt8]

    /// A new random key.
    init() { self.init(P256.Signing.PrivateKey()) }

    init(_ key: P256.Signing.PrivateKey) { rawRepresentation = Array(key.rawRepresentation) }

    func signingKey() throws -> P256.Signing.PrivateKey { try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation) }

    func agreementKey() throws -> P256.KeyAgreement.PrivateKey {
        try P256.KeyAgreement.PrivateKey(rawRepresentation: rawRepresentation)
    }
}

/// A credential as the authenticator keeps it.
struct StoredCredential: Sendable {
    var id: [UInt8]
    var rpId: String
    var rpIdHash: [UInt8]
    var key: P256KeyBytes
    var userHandle: [UInt8]?
    var userName: String?
    var userDisplayName: String?
    var isResident: Bool
    var signCount: UInt32
    /// When it was made: resident credentials are offered newest first.
    var created = Date()

    init(
        id: [UInt8], rpId: String, rpIdHash: [UInt8]? = nil, key: P256KeyBytes, userHandle: [UInt8]?,
        userName: String?, userDisplayName: String?, isResident: Bool, signCount: UInt32
    ) {
        self.id = id
        self.rpId = rpId
        self.rpIdHash = rpIdHash ?? Array(SHA256.hash(data: Array(rpId.utf8)))
        self.key = key
        self.userHandle = userHandle
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.isResident = isResident
        self.signCount = signCount
    }

    init(_ credential: VirtualAuthenticator.Credential) throws(VirtualAuthenticatorError) {
        let key: P256.Signing.PrivateKey
        do {
            key = try credential.signingKey()
        } catch {
            throw VirtualAuthenticatorError(.invalidCredential, "The private key is not a P-256 key in PKCS #8 DER: \(error)")
        }
        guard (1...255).contains(credential.credentialId.count) else {
            throw VirtualAuthenticatorError(
                .invalidCredential, "A credential id has 1 to 255 bytes; this one has \(credential.credentialId.count).")
        }
        if credential.isResidentCredential, credential.userHandle == nil {
            throw VirtualAuthenticatorError(.invalidCredential, "A resident credential needs a user handle.")
        }
        self.init(
            id: Array(credential.credentialId), rpId: credential.rpId, key: P256KeyBytes(key),
            userHandle: credential.userHandle.map(Array.init), userName: credential.userName,
            userDisplayName: credential.userDisplayName, isResident: credential.isResidentCredential,
            signCount: credential.signCount)
    }

    var credential: VirtualAuthenticator.Credential {
        VirtualAuthenticator.Credential(
            credentialId: Data(id), isResidentCredential: isResident, rpId: rpId,
            privateKey: (try? key.signingKey().derRepresentation) ?? Data(),
            userHandle: userHandle.map { Data($0) }, userName: userName, userDisplayName: userDisplayName,
            signCount: signCount)
    }
}
