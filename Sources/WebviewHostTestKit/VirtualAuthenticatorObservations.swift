public import Foundation

extension VirtualAuthenticator {
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
