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
}
