/// CTAPHID constants (CTAP 2.1 §11.2).
enum CTAPHID {
    static let reportLength = 64
    static let broadcastChannel: UInt32 = 0xffff_ffff
    /// 57 bytes in the initialization packet, 59 in each of 128 continuation packets.
    static let maximumMessageLength = 57 + 128 * 59

    enum Command {
        static let ping: UInt8 = 0x01
        static let msg: UInt8 = 0x03
        static let lock: UInt8 = 0x04
        static let initialize: UInt8 = 0x06
        static let wink: UInt8 = 0x08
        static let cbor: UInt8 = 0x10
        static let cancel: UInt8 = 0x11
        static let keepAlive: UInt8 = 0x3b
        static let error: UInt8 = 0x3f
    }

    enum Error {
        static let invalidCommand: UInt8 = 0x01
        static let invalidLength: UInt8 = 0x03
        static let invalidSequence: UInt8 = 0x04
        static let messageTimeout: UInt8 = 0x05
        static let channelBusy: UInt8 = 0x06
        static let invalidChannel: UInt8 = 0x0b
    }

    enum KeepAliveStatus {
        static let processing: UInt8 = 0x01
        static let userPresenceNeeded: UInt8 = 0x02
    }

    enum Capability {
        static let wink: UInt8 = 0x01
        static let cbor: UInt8 = 0x04
        static let noMessage: UInt8 = 0x08
    }
}

/// CTAP2 status codes (CTAP 2.1 §8.2) the authenticator answers.
enum CTAP2Status {
    static let ok: UInt8 = 0x00
    static let invalidCommand: UInt8 = 0x01
    static let invalidParameter: UInt8 = 0x02
    static let invalidLength: UInt8 = 0x03
    static let cborUnexpectedType: UInt8 = 0x11
    static let invalidCBOR: UInt8 = 0x12
    static let missingParameter: UInt8 = 0x14
    static let credentialExcluded: UInt8 = 0x19
    static let unsupportedAlgorithm: UInt8 = 0x26
    static let operationDenied: UInt8 = 0x27
    static let unsupportedOption: UInt8 = 0x2b
    static let invalidOption: UInt8 = 0x2c
    static let keepAliveCancel: UInt8 = 0x2d
    static let noCredentials: UInt8 = 0x2e
    static let notAllowed: UInt8 = 0x30
    static let pinInvalid: UInt8 = 0x31
    static let pinBlocked: UInt8 = 0x32
    static let pinAuthInvalid: UInt8 = 0x33
    static let pinAuthBlocked: UInt8 = 0x34
    static let pinNotSet: UInt8 = 0x35
    static let pinRequired: UInt8 = 0x36
    static let pinPolicyViolation: UInt8 = 0x37
    static let invalidSubcommand: UInt8 = 0x3e
    static let uvInvalid: UInt8 = 0x3f
    static let unauthorizedPermission: UInt8 = 0x40
    static let other: UInt8 = 0x7f
}

/// How a CTAP2 command ends when it does not succeed: a status, or no answer at all (the
/// client left, the authenticator stopped, or it is a key that never answers).
enum CTAP2Failure: Error {
    case status(UInt8)
    case gone
}

/// U2F status words (FIDO U2F Raw Message Formats §3.3).
enum U2FStatus {
    static let noError: UInt16 = 0x9000
    static let conditionsNotSatisfied: UInt16 = 0x6985
    static let wrongData: UInt16 = 0x6a80
    static let wrongLength: UInt16 = 0x6700
    static let incorrectParameters: UInt16 = 0x6a86
    static let claNotSupported: UInt16 = 0x6e00
    static let insNotSupported: UInt16 = 0x6d00
}

/// The permissions of a pinUvAuthToken (CTAP 2.1 §6.5.5.7) this authenticator grants.
enum PINPermission {
    static let makeCredential: UInt8 = 0x01
    static let getAssertion: UInt8 = 0x02
}
