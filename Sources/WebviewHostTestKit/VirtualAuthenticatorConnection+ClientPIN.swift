import Crypto
import SecurityKeys
import Synchronization

extension CTAPHIDConnection {
    enum ClientPINSubcommand {
        static let getPINRetries = 0x01
        static let getKeyAgreement = 0x02
        static let setPIN = 0x03
        static let changePIN = 0x04
        static let getPINToken = 0x05
        static let getPinUvAuthTokenUsingUvWithPermissions = 0x06
        static let getUVRetries = 0x07
        static let getPinUvAuthTokenUsingPinWithPermissions = 0x09
    }

    private var supportedPINProtocols: [Int] {
        core.state.withLock { $0.options.protocolVersion == .ctap2_1 ? [2, 1] : [1] }
    }

    /// `authenticatorClientPIN` (0x06).
    func clientPIN(_ parameters: CTAP2Parameters) throws(CTAP2Failure) -> CBOR? {
        let subcommand = try parameters.int(2)
        let (is21, hasUserVerification) = core.state.withLock {
            ($0.options.protocolVersion == .ctap2_1, $0.options.hasUserVerification)
        }
        if subcommand == ClientPINSubcommand.getPINRetries {
            let retries = core.state.withLock { $0.pin.retries }
            return is21 ? [3: CBOR(retries), 4: false] : [3: CBOR(retries)]
        }
        if subcommand == ClientPINSubcommand.getUVRetries, is21, hasUserVerification {
            return [5: 8]
        }
        let version = try parameters.int(1)
        guard supportedPINProtocols.contains(version) else { throw .status(CTAP2Status.invalidParameter) }
        switch subcommand {
        case ClientPINSubcommand.getKeyAgreement:
            let key = core.state.withLock { $0.pin.keyAgreementKey }
            guard let publicKey = try? Array(key.agreementKey().publicKey.rawRepresentation) else {
                throw .status(CTAP2Status.other)
            }
            return [1: [1: 2, 3: -25, -1: 1, -2: .bytes(Array(publicKey[0..<32])), -3: .bytes(Array(publicKey[32...]))]]
        case ClientPINSubcommand.setPIN:
            try setPIN(parameters, version: version)
            return nil
        case ClientPINSubcommand.changePIN:
            try changePIN(parameters, version: version)
            return nil
        case ClientPINSubcommand.getPINToken:
            return try pinToken(
                parameters, version: version, permissions: PINPermission.makeCredential | PINPermission.getAssertion,
                rpId: nil)
        case ClientPINSubcommand.getPinUvAuthTokenUsingPinWithPermissions where is21:
            return try pinToken(
                parameters, version: version, permissions: Self.permissions(parameters), rpId: parameters.optionalText(10))
        case ClientPINSubcommand.getPinUvAuthTokenUsingUvWithPermissions where is21 && hasUserVerification:
            let permissions = try Self.permissions(parameters)
            let shared = try sharedSecret(parameters, version: version)
            guard core.state.withLock({ $0.options.isUserVerified }) else { throw .status(CTAP2Status.uvInvalid) }
            let token = Self.randomBytes(32)
            let rpId = try parameters.optionalText(10)
            core.update { $0.pin.token = PINToken(bytes: token, permissions: permissions, rpId: rpId) }
            return [2: .bytes(try shared.encrypt(token))]
        default:
            throw .status(CTAP2Status.invalidSubcommand)
        }
    }

    /// The `permissions` member: required, not zero, and only `mc` and `ga` (no credential
    /// management, large blobs or configuration here).
    private static func permissions(_ parameters: CTAP2Parameters) throws(CTAP2Failure) -> UInt8 {
        let permissions = try parameters.int(9)
        guard permissions != 0 else { throw .status(CTAP2Status.invalidParameter) }
        let granted = Int(PINPermission.makeCredential | PINPermission.getAssertion)
        guard permissions & ~granted == 0 else { throw .status(CTAP2Status.unauthorizedPermission) }
        return UInt8(permissions)
    }

    /// The keys shared with the platform, from its `keyAgreement` COSE key and ours.
    private func sharedSecret(_ parameters: CTAP2Parameters, version: Int) throws(CTAP2Failure) -> PINUVAuthProtocol {
        let coseKey = try CTAP2Parameters(map: CTAP2Parameters.map(parameters.value(3)))
        let x = try coseKey.bytes(-2), y = try coseKey.bytes(-3)
        let ourKey = core.state.withLock { $0.pin.keyAgreementKey }
        do {
            let platformKey = try P256.KeyAgreement.PublicKey(rawRepresentation: x + y)
            let point = try ourKey.agreementKey().sharedSecretFromKeyAgreement(with: platformKey).withUnsafeBytes { Array($0) }
            return PINUVAuthProtocol(version: version, sharedPoint: point)
        } catch {
            throw .status(CTAP2Status.invalidParameter)
        }
    }

    private func setPIN(_ parameters: CTAP2Parameters, version: Int) throws(CTAP2Failure) {
        let pinUvAuthParam = try parameters.bytes(4)
        let newPINEncrypted = try parameters.bytes(5)
        let shared = try sharedSecret(parameters, version: version)
        guard core.state.withLock({ $0.pin.pin == nil }) else { throw .status(CTAP2Status.notAllowed) }
        guard shared.authenticate(newPINEncrypted) == pinUvAuthParam else { throw .status(CTAP2Status.pinAuthInvalid) }
        let newPIN = try Self.paddedPIN(shared.decrypt(newPINEncrypted))
        core.update { state in
            state.pin.pin = newPIN
            state.pin.retries = 8
            state.pin.token = nil
        }
    }

    private func changePIN(_ parameters: CTAP2Parameters, version: Int) throws(CTAP2Failure) {
        let pinUvAuthParam = try parameters.bytes(4)
        let newPINEncrypted = try parameters.bytes(5)
        let pinHashEncrypted = try parameters.bytes(6)
        let shared = try sharedSecret(parameters, version: version)
        try checkPINCanBeTried()
        guard shared.authenticate(newPINEncrypted + pinHashEncrypted) == pinUvAuthParam else {
            throw .status(CTAP2Status.pinAuthInvalid)
        }
        try checkPINHash(shared.decrypt(pinHashEncrypted))
        let newPIN = try Self.paddedPIN(shared.decrypt(newPINEncrypted))
        core.update { state in
            state.pin.pin = newPIN
            state.pin.token = nil
        }
    }

    private func pinToken(
        _ parameters: CTAP2Parameters, version: Int, permissions: UInt8, rpId: String?
    ) throws(CTAP2Failure) -> CBOR {
        let pinHashEncrypted = try parameters.bytes(6)
        let shared = try sharedSecret(parameters, version: version)
        try checkPINCanBeTried()
        try checkPINHash(shared.decrypt(pinHashEncrypted))
        let token = Self.randomBytes(32)
        core.update { $0.pin.token = PINToken(bytes: token, permissions: permissions, rpId: rpId) }
        return [2: .bytes(try shared.encrypt(token))]
    }

    /// PIN_NOT_SET, PIN_BLOCKED (no retries left) or PIN_AUTH_BLOCKED (three wrong in a row
    /// since the last power cycle).
    private func checkPINCanBeTried() throws(CTAP2Failure) {
        let pin = core.state.withLock { $0.pin }
        guard pin.pin != nil else { throw .status(CTAP2Status.pinNotSet) }
        guard pin.retries > 0 else { throw .status(CTAP2Status.pinBlocked) }
        guard pin.consecutiveFailures < 3 else { throw .status(CTAP2Status.pinAuthBlocked) }
    }

    /// Compares LEFT(SHA-256(PIN), 16) with the platform's, spending a retry (given back when right).
    private func checkPINHash(_ pinHash: [UInt8]) throws(CTAP2Failure) {
        let failure: UInt8? = core.update { state in
            guard let pin = state.pin.pin else { return CTAP2Status.pinNotSet }
            state.pin.retries -= 1
            guard pinHash == Array(SHA256.hash(data: pin).prefix(16)) else {
                state.pin.keyAgreementKey = P256KeyBytes()
                state.pin.consecutiveFailures += 1
                state.observations.wrongPINs += 1
                if state.pin.retries <= 0 { return CTAP2Status.pinBlocked }
                if state.pin.consecutiveFailures >= 3 { return CTAP2Status.pinAuthBlocked }
                return CTAP2Status.pinInvalid
            }
            state.pin.retries = 8
            state.pin.consecutiveFailures = 0
            return nil
        }
        if let failure { throw .status(failure) }
    }

    /// The PIN inside a decrypted newPinEnc: at least 64 bytes, zero-padded.
    private static func paddedPIN(_ padded: [UInt8]) throws(CTAP2Failure) -> [UInt8] {
        guard padded.count >= 64 else { throw .status(CTAP2Status.pinPolicyViolation) }
        let pin = Array(padded.prefix { $0 != 0 })
        guard ClientPINPolicy.isAcceptable(pin) else { throw .status(CTAP2Status.pinPolicyViolation) }
        return pin
    }

    /// Checks a pinUvAuthParam over `message` against the current token, its permissions and
    /// its relying party (binding the token to `rpId` on first use).
    func verifyPinUvAuthParam(
        _ pinUvAuthParam: [UInt8], protocol version: Int?, message: [UInt8], permission: UInt8, rpId: String
    ) throws(CTAP2Failure) {
        guard let version else { throw .status(CTAP2Status.missingParameter) }
        guard supportedPINProtocols.contains(version) else { throw .status(CTAP2Status.invalidParameter) }
        let failure: UInt8? = core.update { state in
            guard let token = state.pin.token else {
                let canVerify = state.pin.pin != nil || state.options.hasUserVerification
                return canVerify ? CTAP2Status.pinAuthInvalid : CTAP2Status.pinNotSet
            }
            guard
                PINUVAuthProtocol.authenticate(version: version, key: token.bytes, message: message) == pinUvAuthParam,
                token.permissions & permission != 0, token.rpId == nil || token.rpId == rpId
            else { return CTAP2Status.pinAuthInvalid }
            state.pin.token?.rpId = rpId
            return nil
        }
        if let failure { throw .status(failure) }
    }
}
