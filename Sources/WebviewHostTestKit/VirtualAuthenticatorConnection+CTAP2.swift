import Crypto
import Foundation
import SecurityKeys
import Synchronization

/// The assertions still to hand out by `authenticatorGetNextAssertion`.
struct PendingAssertions {
    var channel: UInt32
    var credentialIDs: [[UInt8]]
    var rpIdHash: [UInt8]
    var clientDataHash: [UInt8]
    var flags: UInt8
    /// Whether the user's name and display name go with the user handle: after user
    /// verification, or (CTAP 2.0) when several accounts are offered to choose from.
    var includesUserDetails: Bool
}

extension CTAPHIDConnection {
    enum CTAP2Command {
        static let makeCredential: UInt8 = 0x01
        static let getAssertion: UInt8 = 0x02
        static let getInfo: UInt8 = 0x04
        static let clientPIN: UInt8 = 0x06
        static let reset: UInt8 = 0x07
        static let getNextAssertion: UInt8 = 0x08
        static let selection: UInt8 = 0x0b
    }

    /// The answer to a `CTAPHID_CBOR` message: status byte and CBOR body; `nil` for no answer.
    func ctap2Response(to payload: [UInt8], on channel: UInt32) -> [UInt8]? {
        let command = payload[0]
        let result: Result<CBOR?, CTAP2Failure>
        do throws(CTAP2Failure) {
            result = .success(try run(command, parameters: try Self.parameters(payload.dropFirst()), on: channel))
        } catch {
            result = .failure(error)
        }
        let response: [UInt8]?
        let status: UInt8
        switch result {
        case .success(let body):
            status = CTAP2Status.ok
            response = [status] + (body?.encoded() ?? [])
        case .failure(.status(let code)):
            status = code
            response = [code]
        case .failure(.gone):
            return nil
        }
        core.update { state in
            state.observations.lastCTAP2Command = command
            state.observations.lastCTAP2Status = status
        }
        return response
    }

    private static func parameters(_ bytes: ArraySlice<UInt8>) throws(CTAP2Failure) -> CTAP2Parameters {
        guard !bytes.isEmpty else { return CTAP2Parameters(map: [:]) }
        let decoded: CBOR
        do {
            decoded = try CBOR.decode(bytes)
        } catch {
            throw .status(CTAP2Status.invalidCBOR)
        }
        guard let map = decoded.mapValue else { throw .status(CTAP2Status.cborUnexpectedType) }
        return CTAP2Parameters(map: map)
    }

    private func run(_ command: UInt8, parameters: CTAP2Parameters, on channel: UInt32) throws(CTAP2Failure) -> CBOR? {
        let protocolVersion = core.state.withLock { $0.options.protocolVersion }
        if command != CTAP2Command.getNextAssertion { pendingAssertions = nil }
        switch command {
        case CTAP2Command.getInfo: return info()
        case CTAP2Command.makeCredential: return try makeCredential(parameters, on: channel)
        case CTAP2Command.getAssertion: return try getAssertion(parameters, on: channel)
        case CTAP2Command.getNextAssertion: return try getNextAssertion(on: channel)
        case CTAP2Command.clientPIN: return try clientPIN(parameters)
        case CTAP2Command.reset:
            try requirePresence(on: channel)
            core.update { state in
                state.credentials.removeAll()
                state.pin = PINState(pin: nil, retries: 8)
            }
            return nil
        case CTAP2Command.selection where protocolVersion == .ctap2_1:
            try requirePresence(on: channel)
            return nil
        default:
            throw .status(CTAP2Status.invalidCommand)
        }
    }

    func requirePresence(on channel: UInt32) throws(CTAP2Failure) {
        switch userPresence(on: channel) {
        case .granted: return
        case .denied: throw .status(CTAP2Status.operationDenied)
        case .cancelled: throw .status(CTAP2Status.keepAliveCancel)
        case .gone: throw .gone
        }
    }

    // MARK: authenticatorGetInfo

    private func info() -> CBOR {
        let (options, pinIsSet) = core.state.withLock { ($0.options, $0.pin.pin != nil) }
        let is21 = options.protocolVersion == .ctap2_1
        var flags: [CBOR: CBOR] = [
            "rk": .bool(options.hasResidentKey), "up": true, "plat": false, "clientPin": .bool(pinIsSet),
        ]
        if options.hasUserVerification { flags["uv"] = true }
        if is21 { flags["pinUvAuthToken"] = true }
        return [
            1: is21 ? ["FIDO_2_0", "FIDO_2_1"] : ["U2F_V2", "FIDO_2_0"],
            3: .bytes(Self.bytes(of: options.aaguid)),
            4: .map(flags),
            5: 1200,
            6: is21 ? [2, 1] : [1],
            7: 8,
            8: 128,
            9: [.text(options.transport.rawValue)],
            10: [["alg": -7, "type": "public-key"]],
        ]
    }

    static func bytes(of uuid: UUID) -> [UInt8] {
        withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }

    // MARK: authenticatorMakeCredential

    private func makeCredential(_ parameters: CTAP2Parameters, on channel: UInt32) throws(CTAP2Failure) -> CBOR {
        let clientDataHash = try parameters.bytes(1)
        let rp = try CTAP2Parameters(map: CTAP2Parameters.map(parameters.value(2)))
        let rpId = try rp.text("id")
        let user = try CTAP2Parameters(map: CTAP2Parameters.map(parameters.value(3)))
        let userHandle = try user.bytes("id")
        let userName = try user.optionalText("name"), userDisplayName = try user.optionalText("displayName")
        let algorithms = try CTAP2Parameters.array(parameters.value(4))
        let excludeList = try parameters.optionalArray(5) ?? []
        let options = try parameters.options(7)
        let pinUvAuthParam = try parameters.optionalBytes(8)
        let pinUvAuthProtocol = try parameters.optionalInt(9)
        let settings = recordCeremony(clientDataHash: clientDataHash)

        if let pinUvAuthParam, pinUvAuthParam.isEmpty { try touchProbe(on: channel) }
        let es256 = algorithms.contains { $0["alg"]?.intValue == -7 && $0["type"]?.textValue == "public-key" }
        guard es256 else { throw .status(CTAP2Status.unsupportedAlgorithm) }
        if options.up == false { throw .status(CTAP2Status.invalidOption) }
        let resident = options.rk ?? false
        if resident, !settings.hasResidentKey { throw .status(CTAP2Status.unsupportedOption) }
        let userVerified = try verifyUser(
            pinUvAuthParam: pinUvAuthParam, protocol: pinUvAuthProtocol, uvOption: options.uv,
            clientDataHash: clientDataHash, permission: PINPermission.makeCredential, rpId: rpId,
            pinRequired: true)

        let rpIdHash = Array(SHA256.hash(data: Array(rpId.utf8)))
        for descriptor in excludeList {
            guard let id = descriptor["id"]?.bytesValue else { throw .status(CTAP2Status.cborUnexpectedType) }
            if core.state.withLock({ $0.credentialIndex(id: id, rpIdHash: rpIdHash) }) != nil {
                try requirePresence(on: channel)
                throw .status(CTAP2Status.credentialExcluded)
            }
        }
        try requirePresence(on: channel)

        let key = P256.Signing.PrivateKey()
        let credentialID = Self.randomBytes(32)
        let credential = StoredCredential(
            id: credentialID, rpId: rpId, rpIdHash: rpIdHash, key: P256KeyBytes(key), userHandle: userHandle, userName: userName,
            userDisplayName: userDisplayName, isResident: resident, signCount: 0)
        let flags: UInt8 = 0x01 | (userVerified ? 0x04 : 0) | 0x40
        let publicKey = Array(key.publicKey.rawRepresentation)
        let coseKey: CBOR = [1: 2, 3: -7, -1: 1, -2: .bytes(Array(publicKey[0..<32])), -3: .bytes(Array(publicKey[32...]))]
        let attestedCredentialData =
            Self.bytes(of: settings.aaguid) + [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xff)]
            + credentialID + coseKey.encoded()
        let authenticatorData = rpIdHash + [flags] + Self.bigEndian(credential.signCount) + attestedCredentialData
        let statement: CBOR
        let format: CBOR
        switch settings.attestation {
        case .packed:
            format = "packed"
            statement = ["alg": -7, "sig": .bytes(try Self.sign(authenticatorData + clientDataHash, with: credential.key))]
        case .none:
            format = "none"
            statement = [:]
        }
        core.update { state in
            if resident {
                state.credentials.removeAll { $0.isResident && $0.rpIdHash == rpIdHash && $0.userHandle == userHandle }
            }
            state.credentials.append(credential)
            state.observations.credentialsMade += 1
        }
        return [1: format, 2: .bytes(authenticatorData), 3: statement]
    }

    /// Counts a ceremony and keeps its clientDataHash; returns the options in effect.
    func recordCeremony(clientDataHash: [UInt8]) -> VirtualAuthenticator.Options {
        core.update { state in
            state.observations.ceremonies += 1
            state.observations.lastClientDataHash = Data(clientDataHash)
            return state.options
        }
    }

    /// An empty pinUvAuthParam: a client asking which key the person touches (CTAP 2.0 §5.5.8.1).
    private func touchProbe(on channel: UInt32) throws(CTAP2Failure) -> Never {
        try requirePresence(on: channel)
        let pinIsSet = core.state.withLock { $0.pin.pin != nil }
        throw .status(pinIsSet ? CTAP2Status.pinInvalid : CTAP2Status.pinNotSet)
    }

    /// Checks a pinUvAuthParam, or built-in user verification when the `uv` option asks for it;
    /// returns whether the user is verified.
    private func verifyUser(
        pinUvAuthParam: [UInt8]?, protocol pinUvAuthProtocol: Int?, uvOption: Bool?, clientDataHash: [UInt8],
        permission: UInt8, rpId: String, pinRequired: Bool
    ) throws(CTAP2Failure) -> Bool {
        let options = core.state.withLock { $0.options }
        if let pinUvAuthParam {
            try verifyPinUvAuthParam(
                pinUvAuthParam, protocol: pinUvAuthProtocol, message: clientDataHash, permission: permission, rpId: rpId)
            return true
        }
        if uvOption == true {
            guard options.hasUserVerification else { throw .status(CTAP2Status.unsupportedOption) }
            guard options.isUserVerified else { throw .status(CTAP2Status.operationDenied) }
            return true
        }
        if pinRequired, core.state.withLock({ $0.pin.pin != nil }) { throw .status(CTAP2Status.pinRequired) }
        return false
    }

    static func sign(_ message: [UInt8], with key: P256KeyBytes) throws(CTAP2Failure) -> [UInt8] {
        do {
            return Array(try key.signingKey().signature(for: message).derRepresentation)
        } catch {
            throw .status(CTAP2Status.other)
        }
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    // MARK: authenticatorGetAssertion

    private func getAssertion(_ parameters: CTAP2Parameters, on channel: UInt32) throws(CTAP2Failure) -> CBOR {
        let rpId = try parameters.text(1)
        let clientDataHash = try parameters.bytes(2)
        let allowList = try parameters.optionalArray(3) ?? []
        let options = try parameters.options(5)
        let pinUvAuthParam = try parameters.optionalBytes(6)
        let pinUvAuthProtocol = try parameters.optionalInt(7)
        _ = recordCeremony(clientDataHash: clientDataHash)

        if let pinUvAuthParam, pinUvAuthParam.isEmpty { try touchProbe(on: channel) }
        if options.rk != nil { throw .status(CTAP2Status.unsupportedOption) }
        let userVerified = try verifyUser(
            pinUvAuthParam: pinUvAuthParam, protocol: pinUvAuthProtocol, uvOption: options.uv,
            clientDataHash: clientDataHash, permission: PINPermission.getAssertion, rpId: rpId, pinRequired: false)

        let rpIdHash = Array(SHA256.hash(data: Array(rpId.utf8)))
        var allowed: [[UInt8]] = []
        for descriptor in allowList {
            guard let id = descriptor["id"]?.bytesValue else { throw .status(CTAP2Status.cborUnexpectedType) }
            allowed.append(id)
        }
        let candidates: [[UInt8]] = core.state.withLock { state in
            if !allowed.isEmpty {
                return allowed.filter { state.credentialIndex(id: $0, rpIdHash: rpIdHash) != nil }
            }
            return state.credentials.filter { $0.isResident && $0.rpIdHash == rpIdHash }
                .sorted { $0.created > $1.created }.map(\.id)
        }
        guard let first = candidates.first else { throw .status(CTAP2Status.noCredentials) }
        let userPresent = options.up ?? true
        if userPresent { try requirePresence(on: channel) }

        let flags: UInt8 = (userPresent ? 0x01 : 0) | (userVerified ? 0x04 : 0)
        let choosing = allowed.isEmpty && candidates.count > 1
        let is21 = core.state.withLock { $0.options.protocolVersion == .ctap2_1 }
        let pending = PendingAssertions(
            channel: channel, credentialIDs: choosing ? Array(candidates.dropFirst()) : [], rpIdHash: rpIdHash,
            clientDataHash: clientDataHash, flags: flags, includesUserDetails: userVerified || (choosing && !is21))
        let response = try assertion(id: first, pending: pending, numberOfCredentials: choosing ? candidates.count : nil)
        if choosing { pendingAssertions = pending }
        return response
    }

    private func getNextAssertion(on channel: UInt32) throws(CTAP2Failure) -> CBOR {
        guard var pending = pendingAssertions, pending.channel == channel, !pending.credentialIDs.isEmpty else {
            throw .status(CTAP2Status.notAllowed)
        }
        let id = pending.credentialIDs.removeFirst()
        pendingAssertions = pending.credentialIDs.isEmpty ? nil : pending
        return try assertion(id: id, pending: pending)
    }

    /// Signs one assertion with the credential `id`, counting it.
    private func assertion(
        id: [UInt8], pending: PendingAssertions, numberOfCredentials: Int? = nil
    ) throws(CTAP2Failure) -> CBOR {
        let signed = try core.updateThrowing { (state) throws(CTAP2Failure) -> CBOR in
            guard let index = state.credentialIndex(id: id, rpIdHash: pending.rpIdHash) else {
                throw .status(CTAP2Status.noCredentials)
            }
            state.credentials[index].signCount &+= 1
            let credential = state.credentials[index]
            let authenticatorData = pending.rpIdHash + [pending.flags] + Self.bigEndian(credential.signCount)
            let signature = try Self.sign(authenticatorData + pending.clientDataHash, with: credential.key)
            var response: [CBOR: CBOR] = [
                1: ["id": .bytes(id), "type": "public-key"], 2: .bytes(authenticatorData), 3: .bytes(signature),
            ]
            if credential.isResident, let userHandle = credential.userHandle {
                var user: [CBOR: CBOR] = ["id": .bytes(userHandle)]
                if pending.includesUserDetails {
                    if let name = credential.userName { user["name"] = .text(name) }
                    if let displayName = credential.userDisplayName { user["displayName"] = .text(displayName) }
                }
                response[4] = .map(user)
            }
            if let numberOfCredentials { response[5] = CBOR(numberOfCredentials) }
            state.observations.assertionsMade += 1
            return .map(response)
        }
        return signed
    }
}
