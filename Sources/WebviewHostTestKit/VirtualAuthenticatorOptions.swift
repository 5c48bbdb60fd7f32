public import Crypto
public import Foundation

extension VirtualAuthenticator {
    /// The protocol the authenticator speaks (automation: `protocol`).
    public enum ProtocolVersion: String, Sendable, CaseIterable {
        /// CTAP 2.0, with U2F (`CTAPHID_MSG`) beside it: versions `FIDO_2_0` and `U2F_V2`.
        case ctap2
        /// CTAP 2.1 without U2F: versions `FIDO_2_0` and `FIDO_2_1`, PIN/UV protocols 2 and 1,
        /// PIN tokens with permissions.
        case ctap2_1
        /// A U2F-only key: no `CTAPHID_CBOR`.
        case u2f
    }

    /// How the authenticator says it is attached (automation: `transport`); only reported, in
    /// `authenticatorGetInfo`. The wire is the socket whichever it is.
    public enum Transport: String, Sendable, CaseIterable {
        case usb, nfc, ble, `internal`
    }

    /// How user presence (a touch) is given.
    public enum UserPresence: Sendable, Hashable {
        /// At once, granted when ``Options/isUserConsenting`` is true and denied otherwise.
        case immediate
        /// Keep-alives (`STATUS_UPNEEDED`, every 100 ms) until ``VirtualAuthenticator/touch()``
        /// or a `CTAPHID_CANCEL` (answered with `CTAP2_ERR_KEEPALIVE_CANCEL`). Over U2F the key
        /// answers `SW_CONDITIONS_NOT_SATISFIED` until touched.
        case waitForTouch
        /// A key that never answers a request needing presence: no keep-alive, no reply, and a
        /// cancel changes nothing.
        case neverAnswer
    }

    /// The attestation statement of new credentials.
    public enum AttestationFormat: String, Sendable, CaseIterable {
        /// `packed` self attestation: signed by the credential's own key, `alg` -7, no `x5c`.
        case packed
        /// `none`: an empty statement.
        case none
    }

    /// What kind of authenticator this is (automation: "Authenticator Configuration"), plus the
    /// PIN and the user-presence mode.
    public struct Options: Sendable, Hashable {
        public var protocolVersion: ProtocolVersion
        public var transport: Transport
        /// Whether it can store resident (discoverable) credentials.
        public var hasResidentKey: Bool
        /// Whether it has built-in user verification (option `uv`; with CTAP 2.1 also
        /// getPinUvAuthTokenUsingUvWithPermissions).
        public var hasUserVerification: Bool
        /// Whether the person agrees when presence is asked in ``UserPresence/immediate`` mode.
        public var isUserConsenting: Bool
        /// Whether built-in user verification succeeds (when it fails: `CTAP2_ERR_OPERATION_DENIED`
        /// for the `uv` option, `CTAP2_ERR_UV_INVALID` for a token).
        public var isUserVerified: Bool
        /// The client PIN set at the start (`nil`: none set; a client may set one). 4 to 63 bytes.
        public var pin: String?
        /// PIN attempts left at the start (8 on a new key).
        public var pinRetries: Int
        public var userPresence: UserPresence
        public var attestation: AttestationFormat
        /// The AAGUID in `authenticatorGetInfo` and in attested credential data.
        public var aaguid: UUID

        public init(
            protocolVersion: ProtocolVersion = .ctap2, transport: Transport = .usb, hasResidentKey: Bool = true,
            hasUserVerification: Bool = false, isUserConsenting: Bool = true, isUserVerified: Bool = false,
            pin: String? = nil, pinRetries: Int = 8, userPresence: UserPresence = .immediate,
            attestation: AttestationFormat = .packed, aaguid: UUID = UUID()
        ) {
            self.protocolVersion = protocolVersion
            self.transport = transport
            self.hasResidentKey = hasResidentKey
            self.hasUserVerification = hasUserVerification
            self.isUserConsenting = isUserConsenting
            self.isUserVerified = isUserVerified
            self.pin = pin
            self.pinRetries = pinRetries
            self.userPresence = userPresence
            self.attestation = attestation
            self.aaguid = aaguid
        }
    }

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

    /// What the authenticator has seen since it started.
    public struct Observations: Sendable, Hashable {
        /// Connections accepted (openings of the device).
        public var connections = 0
        /// `CTAPHID_CANCEL` reports received, waiting or not.
        public var cancelsReceived = 0
        /// Requests that began waiting for a touch (``UserPresence/waitForTouch``).
        public var touchRequests = 0
        /// Whether a request is waiting for a touch now. Over U2F, from the first refused request
        /// until the touch (a U2F client repeats its request until the key is touched).
        public var isWaitingForTouch = false
        /// Requests that began waiting in ``UserPresence/neverAnswer`` mode.
        public var unansweredRequests = 0
        /// MakeCredential and GetAssertion requests (CTAP2), and U2F REGISTER and AUTHENTICATE
        /// requests that completed (a U2F client repeats a request until the key is touched).
        public var ceremonies = 0
        /// Credentials made (CTAP2 or U2F) and assertions signed (each GetNextAssertion counts).
        public var credentialsMade = 0
        public var assertionsMade = 0
        /// The clientDataHash (U2F: challenge parameter) of the last ceremony.
        public var lastClientDataHash: Data?
        /// The CTAP2 command byte and status of the last CBOR request (`nil` before any).
        public var lastCTAP2Command: UInt8?
        public var lastCTAP2Status: UInt8?
        /// CTAPHID errors sent (`CTAPHID_ERROR`: bad channel, length, sequence, command, timeout).
        public var framingErrors = 0
        /// Wrong PINs received (getPINToken, changePIN).
        public var wrongPINs = 0

        public init() {}
    }
}

/// Why a ``VirtualAuthenticator`` could not be created or a credential not added.
public struct VirtualAuthenticatorError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. A struct, so new codes do not break callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The socket could not be created, bound or listened on.
        public static let socketUnavailable = Code("socketUnavailable")
        /// The options cannot work (a PIN too short or too long).
        public static let invalidOptions = Code("invalidOptions")
        /// The credential cannot be added (its key, its id, or resident keys unsupported).
        public static let invalidCredential = Code("invalidCredential")
    }

    public var code: Code
    /// What happened, in words a developer can act on.
    public var message: String
    /// The `errno` of the system call that failed, when one did.
    public var errno: Int32?

    public init(_ code: Code, _ message: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    public var description: String {
        message + (errno.map { " (\(String(cString: strerror($0))))" } ?? "")
    }
}
