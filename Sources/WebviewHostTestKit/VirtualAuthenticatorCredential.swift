public import Crypto
public import Foundation

extension VirtualAuthenticator {
    /// A credential on the authenticator (automation: "Credential Parameters").
    public struct Credential: Sendable, Hashable {
        public var credentialId: Data
        /// A resident (discoverable) credential: found by rpId without an allow list.
        public var isResidentCredential: Bool
        /// The relying party's id; empty for a credential registered over U2F, which names its
        /// application only by hash.
        public var rpId: String
        /// The ES256 private key, PKCS #8 DER.
        public var privateKey: Data
        public var userHandle: Data?
        /// The user's name and display name, as the client gave them (resident credentials).
        public var userName: String?
        public var userDisplayName: String?
        public var signCount: UInt32

        /// A credential with its private key as PKCS #8 DER (checked by
        /// ``VirtualAuthenticator/addCredential(_:)``).
        public init(
            credentialId: Data, isResidentCredential: Bool, rpId: String, privateKey: Data, userHandle: Data? = nil,
            userName: String? = nil, userDisplayName: String? = nil, signCount: UInt32 = 0
        ) {
            self.credentialId = credentialId
            self.isResidentCredential = isResidentCredential
            self.rpId = rpId
            self.privateKey = privateKey
            self.userHandle = userHandle
            self.userName = userName
            self.userDisplayName = userDisplayName
            self.signCount = signCount
        }

        /// A credential with a swift-crypto key.
        public init(
            credentialId: Data, isResidentCredential: Bool, rpId: String, signingKey: P256.Signing.PrivateKey,
            userHandle: Data? = nil, userName: String? = nil, userDisplayName: String? = nil, signCount: UInt32 = 0
        ) {
            self.init(
                credentialId: credentialId, isResidentCredential: isResidentCredential, rpId: rpId,
                privateKey: signingKey.derRepresentation, userHandle: userHandle, userName: userName,
                userDisplayName: userDisplayName, signCount: signCount)
        }

        /// The private key as a swift-crypto key; throws when ``privateKey`` is not P-256 PKCS #8.
        public func signingKey() throws -> P256.Signing.PrivateKey {
            try P256.Signing.PrivateKey(derRepresentation: privateKey)
        }
    }
}
