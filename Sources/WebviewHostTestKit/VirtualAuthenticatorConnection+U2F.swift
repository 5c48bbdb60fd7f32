import Crypto
import Foundation
import Synchronization

extension CTAPHIDConnection {
    /// The answer to a `CTAPHID_MSG` message (an ISO 7816-4 APDU): data and status word; `nil`
    /// for no answer (a key that never answers).
    func u2fResponse(to apdu: [UInt8], on channel: UInt32) -> [UInt8]? {
        guard let (instruction, control, data) = Self.parseAPDU(apdu) else {
            return Self.status(U2FStatus.wrongLength)
        }
        guard apdu[0] == 0 else { return Self.status(U2FStatus.claNotSupported) }
        switch instruction {
        case 0x01: return u2fRegister(data, on: channel)
        case 0x02: return u2fAuthenticate(data, control: control, on: channel)
        case 0x03: return data.isEmpty ? Array("U2F_V2".utf8) + Self.status(U2FStatus.noError) : Self.status(U2FStatus.wrongLength)
        default: return Self.status(U2FStatus.insNotSupported)
        }
    }

    /// INS, P1 and the command data of a short or extended APDU; `nil` when the lengths do not add up.
    private static func parseAPDU(_ apdu: [UInt8]) -> (instruction: UInt8, control: UInt8, data: [UInt8])? {
        guard apdu.count >= 4 else { return nil }
        let body = Array(apdu.dropFirst(4))
        if body.isEmpty || body.count == 1 { return (apdu[1], apdu[2], []) }  // no data, maybe a short Le
        if body[0] == 0 {
            guard body.count >= 3 else { return nil }
            if body.count == 3 { return (apdu[1], apdu[2], []) }  // an extended Le alone
            let length = Int(body[1]) << 8 | Int(body[2])
            // The data, then an extended Le (two bytes) or none.
            guard [3 + length, 5 + length].contains(body.count) else { return nil }
            return (apdu[1], apdu[2], Array(body[3..<3 + length]))
        }
        let length = Int(body[0])
        guard [1 + length, 2 + length].contains(body.count) else { return nil }
        return (apdu[1], apdu[2], Array(body[1..<1 + length]))
    }

    static func status(_ word: UInt16) -> [UInt8] { [UInt8(word >> 8), UInt8(word & 0xff)] }

    private enum U2FPresence { case granted, notYet, gone }

    /// U2F asks for presence by failing until the person has touched the key; the client polls.
    private func u2fPresence(on channel: UInt32) -> U2FPresence {
        let mode = core.state.withLock { $0.options.userPresence }
        switch mode {
        case .immediate:
            return core.state.withLock { $0.options.isUserConsenting } ? .granted : .notYet
        case .waitForTouch:
            return core.update { state in
                if state.pendingTouches > 0 {
                    state.pendingTouches -= 1
                    state.observations.isWaitingForTouch = state.touchWaits > 0
                    return .granted
                }
                if !state.observations.isWaitingForTouch {
                    state.observations.touchRequests += 1
                    state.observations.isWaitingForTouch = true
                }
                return .notYet
            }
        case .neverAnswer:
            return userPresence(on: channel) == .gone ? .gone : .notYet
        }
    }

    private func u2fRegister(_ data: [UInt8], on channel: UInt32) -> [UInt8]? {
        guard data.count == 64 else { return Self.status(U2FStatus.wrongLength) }
        let challenge = Array(data[0..<32]), application = Array(data[32..<64])
        switch u2fPresence(on: channel) {
        case .gone: return nil
        case .notYet: return Self.status(U2FStatus.conditionsNotSatisfied)
        case .granted: break
        }
        let key = P256.Signing.PrivateKey()
        let keyHandle = Self.randomBytes(64)
        let publicKey = Array(key.publicKey.x963Representation)
        let (attestationKey, certificate) = core.update { state in
            state.observations.ceremonies += 1
            state.observations.lastClientDataHash = Data(challenge)
            state.observations.credentialsMade += 1
            state.credentials.append(
                StoredCredential(
                    id: keyHandle, rpId: "", rpIdHash: application, key: P256KeyBytes(key), userHandle: nil, userName: nil,
                    userDisplayName: nil, isResident: false, signCount: 0))
            if state.attestationCertificate == nil {
                state.attestationCertificate = AttestationCertificate.make(key: state.attestationKey)
            }
            return (state.attestationKey, state.attestationCertificate ?? [])
        }
        let signed = [0] + application + challenge + keyHandle + publicKey
        guard let signature = try? Self.sign(signed, with: attestationKey) else { return Self.status(0x6f00) }
        return [0x05] + publicKey + [UInt8(keyHandle.count)] + keyHandle + certificate + signature
            + Self.status(U2FStatus.noError)
    }

    private func u2fAuthenticate(_ data: [UInt8], control: UInt8, on channel: UInt32) -> [UInt8]? {
        guard data.count >= 65, data.count == 65 + Int(data[64]) else { return Self.status(U2FStatus.wrongLength) }
        let challenge = Array(data[0..<32]), application = Array(data[32..<64]), keyHandle = Array(data[65...])
        guard core.state.withLock({ $0.credentialIndex(id: keyHandle, rpIdHash: application) }) != nil else {
            return Self.status(U2FStatus.wrongData)
        }
        let userPresent: Bool
        switch control {
        case 0x07: return Self.status(U2FStatus.conditionsNotSatisfied)  // check-only: the handle is ours
        case 0x08: userPresent = false  // don't-enforce-user-presence-and-sign
        case 0x03:
            switch u2fPresence(on: channel) {
            case .gone: return nil
            case .notYet: return Self.status(U2FStatus.conditionsNotSatisfied)
            case .granted: userPresent = true
            }
        default: return Self.status(U2FStatus.incorrectParameters)
        }
        let flags: UInt8 = userPresent ? 0x01 : 0
        let response = core.update { state -> [UInt8]? in
            guard let index = state.credentialIndex(id: keyHandle, rpIdHash: application) else { return nil }
            state.credentials[index].signCount &+= 1
            let counter = Self.bigEndian(state.credentials[index].signCount)
            guard let signature = try? Self.sign(application + [flags] + counter + challenge, with: state.credentials[index].key)
            else { return nil }
            state.observations.ceremonies += 1
            state.observations.lastClientDataHash = Data(challenge)
            state.observations.assertionsMade += 1
            return [flags] + counter + signature
        }
        guard let response else { return Self.status(U2FStatus.wrongData) }
        return response + Self.status(U2FStatus.noError)
    }
}
