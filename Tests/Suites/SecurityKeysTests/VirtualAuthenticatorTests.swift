import Crypto
import Foundation
import ScenarioSupport
import Testing
import TestTraits
import WebviewHostTestKit

/// The virtual authenticator checked by an independent client and relying party: python3-fido2
/// (Tests/Fixtures/WebAuthn/webauthn_client.py) talks CTAPHID to its socket, and its Fido2Server
/// verifies attestations and assertions.
@Suite("VirtualAuthenticator", .desktop)
struct VirtualAuthenticatorTests {
    typealias Options = VirtualAuthenticator.Options

    // MARK: Through python3-fido2

    @Test(arguments: [VirtualAuthenticator.ProtocolVersion.ctap2, .ctap2_1])
    func getInfoSaysWhatTheAuthenticatorIs(protocolVersion: VirtualAuthenticator.ProtocolVersion) async throws {
        let authenticator = try VirtualAuthenticator(options: Options(protocolVersion: protocolVersion, transport: .nfc))
        let info = try await FidoClientFixture.run(authenticator, "info")
        let is21 = protocolVersion == .ctap2_1
        #expect(info["versions"] as? [String] == (is21 ? ["FIDO_2_0", "FIDO_2_1"] : ["U2F_V2", "FIDO_2_0"]))
        #expect(info["pin_protocols"] as? [Int] == (is21 ? [2, 1] : [1]))
        #expect(info["transports"] as? [String] == ["nfc"])
        #expect(info["algorithms"] as? [Int] == [-7])
        #expect(info["aaguid"] as? String == Hex.string(withUnsafeBytes(of: authenticator.options.aaguid.uuid) { Array($0) }))
        let options = try #require(info["options"] as? [String: Bool])
        #expect(options["rk"] == true && options["up"] == true && options["clientPin"] == false)
        #expect(options["pinUvAuthToken"] == (is21 ? true : nil))
    }

    @Test(arguments: VirtualAuthenticator.AttestationFormat.allCases)
    func registersAndAuthenticatesAsTheServerVerifies(attestation: VirtualAuthenticator.AttestationFormat) async throws {
        let authenticator = try VirtualAuthenticator(options: Options(attestation: attestation))
        let result = try await FidoClientFixture.run(authenticator, "register-authenticate")
        #expect(result["verified"] as? Bool == true, "\(result)")
        #expect(result["fmt"] as? String == attestation.rawValue)
        #expect(result["registration_flags"] as? Int == 0x41)  // UP, AT
        #expect(result["registration_count"] as? Int == 0)
        #expect(result["sign_counts"] as? [Int] == [1, 2])
        #expect(result["assertion_flags"] as? [Int] == [0x01, 0x01])
        #expect(result["aaguid"] as? String == Hex.string(withUnsafeBytes(of: authenticator.options.aaguid.uuid) { Array($0) }))
        let credentials = authenticator.credentials()
        #expect(credentials.count == 1)
        #expect(credentials.first.map { Hex.string($0.credentialId) } == result["credential_id"] as? String)
        #expect(credentials.first?.isResidentCredential == false)
        #expect(credentials.first?.rpId == "example.com")
        #expect(credentials.first?.signCount == 2)
        let seen = authenticator.observations
        #expect(seen.ceremonies == 3 && seen.credentialsMade == 1 && seen.assertionsMade == 2)
        #expect(seen.lastClientDataHash?.count == 32)
        #expect(seen.lastCTAP2Status == 0)
    }

    @Test func residentCredentialIsListedAndReturnsItsUserHandle() async throws {
        let authenticator = try VirtualAuthenticator()
        let result = try await FidoClientFixture.run(authenticator, "resident")
        #expect(result["verified"] as? Bool == true, "\(result)")
        let userHandle = Hex.string(Array("user-handle-0001".utf8))
        #expect(result["user_handles"] as? [String] == [userHandle, userHandle])
        let credential = try #require(authenticator.credentials().first)
        #expect(credential.isResidentCredential)
        #expect(credential.userHandle.map(Hex.string) == userHandle)
        #expect(credential.userName == "alice@example.com")
        #expect(Hex.string(credential.credentialId) == result["credential_id"] as? String)
    }

    @Test func twoAccountsAreOfferedNewestFirstThroughGetNextAssertion() async throws {
        let authenticator = try VirtualAuthenticator()
        let result = try await FidoClientFixture.run(authenticator, "two-accounts")
        #expect(result["number_of_credentials"] as? Int == 2, "\(result)")
        let users = try #require(result["users"] as? [[String: Any]])
        #expect(users.map { $0["id"] as? String } == ["02", "01"])
        #expect(users.map { $0["name"] as? String } == ["bob", "alice"])
        #expect(authenticator.observations.assertionsMade == 2)
    }

    @Test func excludedCredentialIsRefused() async throws {
        let authenticator = try VirtualAuthenticator()
        let result = try await FidoClientFixture.run(authenticator, "exclude")
        #expect(result["ctap"] as? String == "CREDENTIAL_EXCLUDED", "\(result)")
        #expect(authenticator.credentials().count == 1)
    }

    @Test func unknownAllowedCredentialFindsNoCredentials() async throws {
        let authenticator = try VirtualAuthenticator()
        let result = try await FidoClientFixture.run(authenticator, "unknown-allow")
        #expect(result["ctap"] as? String == "NO_CREDENTIALS", "\(result)")
    }

    @Test func personNotConsentingIsDenied() async throws {
        let authenticator = try VirtualAuthenticator(options: Options(isUserConsenting: false))
        let result = try await FidoClientFixture.run(authenticator, "register")
        #expect(result["ctap"] as? String == "OPERATION_DENIED", "\(result)")
        #expect(authenticator.credentials().isEmpty)
        authenticator.setUserConsenting(true)
        let again = try await FidoClientFixture.run(authenticator, "register")
        #expect(again["registered"] is String, "\(again)")
    }

    @Test(arguments: [VirtualAuthenticator.ProtocolVersion.ctap2, .ctap2_1])
    func wrongPINSpendsARetryAndRightPINVerifies(protocolVersion: VirtualAuthenticator.ProtocolVersion) async throws {
        let authenticator = try VirtualAuthenticator(options: Options(protocolVersion: protocolVersion, pin: "1234"))
        let result = try await FidoClientFixture.run(authenticator, "pin", ["9999", "1234"])
        #expect(result["protocol"] as? Int == (protocolVersion == .ctap2_1 ? 2 : 1), "\(result)")
        #expect(result["retries_before"] as? Int == 8)
        #expect(result["wrong"] as? String == "PIN_INVALID")
        #expect(result["retries_after_wrong"] as? Int == 7)
        #expect(result["token_length"] as? Int == 32)
        #expect(result["retries_after_right"] as? Int == 8)
        #expect(result["registration_flags"] as? Int == 0x45)  // UP, UV, AT
        #expect(result["assertion_flags"] as? Int == 0x05)  // UP, UV
        #expect(result["without_pin"] as? String == "PIN_REQUIRED")
        #expect(authenticator.observations.wrongPINs == 1)
        #expect(authenticator.pinRetries == 8)
    }

    @Test func threeWrongPINsInARowNeedAPowerCycle() async throws {
        let authenticator = try VirtualAuthenticator(options: Options(pin: "1234"))
        let wrong = try await FidoClientFixture.run(authenticator, "wrong-pins", ["0000", "3"])
        #expect(wrong["errors"] as? [String] == ["PIN_INVALID", "PIN_INVALID", "PIN_AUTH_BLOCKED"], "\(wrong)")
        #expect(wrong["retries"] as? Int == 5)
        let blocked = try await FidoClientFixture.run(authenticator, "right-pin", ["1234"])
        #expect(blocked["ctap"] as? String == "PIN_AUTH_BLOCKED", "\(blocked)")
        #expect(authenticator.pinRetries == 5)
        authenticator.powerCycle()
        let right = try await FidoClientFixture.run(authenticator, "right-pin", ["1234"])
        #expect(right["token_length"] as? Int == 32, "\(right)")
        #expect(right["retries"] as? Int == 8)
    }

    @Test func pinIsBlockedWhenNoRetriesAreLeft() async throws {
        let authenticator = try VirtualAuthenticator(options: Options(pin: "1234", pinRetries: 2))
        let wrong = try await FidoClientFixture.run(authenticator, "wrong-pins", ["0000", "2"])
        #expect(wrong["errors"] as? [String] == ["PIN_INVALID", "PIN_BLOCKED"], "\(wrong)")
        authenticator.powerCycle()
        let right = try await FidoClientFixture.run(authenticator, "right-pin", ["1234"])
        #expect(right["ctap"] as? String == "PIN_BLOCKED", "\(right)")
        #expect(authenticator.pinRetries == 0)
    }

    @Test(arguments: [VirtualAuthenticator.ProtocolVersion.ctap2, .ctap2_1])
    func clientSetsAndChangesThePIN(protocolVersion: VirtualAuthenticator.ProtocolVersion) async throws {
        let authenticator = try VirtualAuthenticator(options: Options(protocolVersion: protocolVersion))
        #expect(authenticator.pin == nil)
        let result = try await FidoClientFixture.run(authenticator, "set-pin", ["4321"])
        #expect(result["token_length"] as? Int == 32, "\(result)")
        #expect(result["client_pin"] as? Bool == true)
        #expect(authenticator.pin == "43219")
    }

    @Test func cancelWhileWaitingForTouchEndsTheCeremony() async throws {
        let authenticator = try VirtualAuthenticator(options: Options(userPresence: .waitForTouch))
        let result = try await FidoClientFixture.run(authenticator, "cancel")
        #expect(result["ctap"] as? String == "KEEPALIVE_CANCEL", "\(result)")
        #expect(result["keepalives"] as? [Int] == [2])  // STATUS_UPNEEDED
        let seen = authenticator.observations
        #expect(seen.cancelsReceived >= 1 && seen.touchRequests == 1 && !seen.isWaitingForTouch)
        #expect(authenticator.credentials().isEmpty)
    }

    @Test func touchLetsTheWaitingCeremonyGoOn() async throws {
        let authenticator = try VirtualAuthenticator(options: Options(userPresence: .waitForTouch))
        async let registered = FidoClientFixture.run(authenticator, "register")
        let waiting = await authenticator.waitUntil(timeout: Patience.event) { $0.isWaitingForTouch }
        #expect(waiting)
        authenticator.touch()
        let result = try await registered
        #expect(result["registered"] is String, "\(result)")
        #expect(authenticator.observations.touchRequests == 1)
    }

    @Test func keyThatNeverAnswersStaysSilentEvenWhenCancelled() async throws {
        let authenticator = try VirtualAuthenticator(options: Options(userPresence: .neverAnswer))
        let result = try await FidoClientFixture.run(authenticator, "never-answer")
        #expect(result["quiet_before_cancel"] as? Bool == true, "\(result)")
        #expect(result["quiet_after_cancel"] as? Bool == true)
        let seen = authenticator.observations
        #expect(seen.unansweredRequests == 1 && seen.cancelsReceived == 1 && seen.lastCTAP2Status == nil)
    }

    @Test func stopEndsAConnectionWaitingForTouch() async throws {
        let authenticator = try VirtualAuthenticator(options: Options(userPresence: .waitForTouch))
        async let registered = FidoClientFixture.run(authenticator, "register")
        #expect(await authenticator.waitUntil(timeout: Patience.event) { $0.isWaitingForTouch })
        authenticator.stop()
        let result = try await registered
        #expect(result["registered"] == nil, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: authenticator.socketPath))
    }

    @Test func addedCredentialSignsWhatItsPublicKeyVerifies() async throws {
        let authenticator = try VirtualAuthenticator()
        let key = P256.Signing.PrivateKey()
        let id = Data((0..<16).map { UInt8($0) })
        try authenticator.addCredential(
            .init(credentialId: id, isResidentCredential: false, rpId: "example.com", signingKey: key, signCount: 41))
        let result = try await FidoClientFixture.run(authenticator, "assert-with", [Hex.string(id)])
        #expect(result["counter"] as? Int == 42, "\(result)")
        let authenticatorData = try #require((result["authenticator_data"] as? String).flatMap(Hex.bytes))
        let clientDataHash = try #require((result["client_data_hash"] as? String).flatMap(Hex.bytes))
        let signature = try P256.Signing.ECDSASignature(
            derRepresentation: try #require((result["signature"] as? String).flatMap(Hex.bytes)))
        #expect(key.publicKey.isValidSignature(signature, for: authenticatorData + clientDataHash))
        #expect(Array(authenticatorData.prefix(32)) == Array(SHA256.hash(data: Array("example.com".utf8))))
        #expect(authenticator.credentials().first?.signCount == 42)
    }

    @Test func malformedFramesAndCBORGetErrorsNeverACrashOrAHang() async throws {
        let authenticator = try VirtualAuthenticator()
        let result = try await FidoClientFixture.run(authenticator, "malformed")
        let expected: [String: String] = [
            "indefinite_length": "cbor:12", "truncated_map": "cbor:12", "not_a_map": "cbor:11",
            "missing_parameters": "cbor:14", "too_deep": "cbor:12", "huge_map_length": "cbor:12",
            "huge_byte_string": "cbor:12", "wrong_types": "cbor:11", "trailing_bytes": "cbor:12",
            "unknown_command": "cbor:01", "tag": "cbor:12", "float": "cbor:12", "unsupported_algorithm": "cbor:26",
            "unknown_hid_command": "error:01", "unknown_channel": "error:0b", "broadcast_ping": "error:0b",
            "length_too_large": "error:03", "short_init_nonce": "error:03", "empty_cbor": "error:03",
            "wrong_sequence": "error:04", "message_timeout": "error:05",
        ]
        for (name, answer) in expected {
            #expect(result[name] as? String == answer, "\(name): \(result[name] ?? "none")")
        }
        for name in ["stray_continuation_ignored", "idle_cancel_ignored", "long_ping", "alive"] {
            #expect(result[name] as? Bool == true, "\(name): \(result[name] ?? "none")")
        }
        // The authenticator still serves a well-behaved client afterwards.
        let again = try await FidoClientFixture.run(authenticator, "register")
        #expect(again["registered"] is String, "\(again)")
    }

    @Test func u2fRegistersAndAuthenticatesWithItsAttestationCertificate() async throws {
        let authenticator = try VirtualAuthenticator(options: Options(protocolVersion: .u2f))
        let result = try await FidoClientFixture.run(authenticator, "u2f")
        #expect(result["verified"] as? Bool == true, "\(result)")
        #expect(result["fmt"] as? String == "fido-u2f")
        #expect(result["uses_ctap2"] as? Bool == false)
        #expect(result["sign_counts"] as? [Int] == [1, 2])
        #expect(authenticator.credentials().count == 1)
    }

    @Test func u2fWaitsForTouchByRefusingUntilTouched() async throws {
        let authenticator = try VirtualAuthenticator(options: Options(protocolVersion: .u2f, userPresence: .waitForTouch))
        async let verified = FidoClientFixture.run(authenticator, "u2f")
        // Registration, then two authentications: each waits for its own touch.
        for request in 1...3 {
            #expect(await authenticator.waitUntil(timeout: Patience.event) { $0.isWaitingForTouch && $0.touchRequests == request })
            authenticator.touch()
        }
        let result = try await verified
        #expect(result["verified"] as? Bool == true, "\(result)")
    }

    @Test func ctap2KeySpeaksU2FToo() async throws {
        let authenticator = try VirtualAuthenticator()
        let result = try await FidoClientFixture.run(authenticator, "ctap1")
        #expect(result["version"] as? String == "U2F_V2", "\(result)")
        #expect(result["key_handle_length"] as? Int == 64)
        #expect(result["check_only_known"] as? String == "6985")
        #expect(result["check_only_unknown"] as? String == "6a80")
        #expect(result["other_application"] as? String == "6a80")
        #expect(result["counter"] as? Int == 1)
        #expect(result["user_presence"] as? Int == 1)
        #expect(result["unknown_instruction"] as? String == "6d00")
        #expect(result["wrong_class"] as? String == "6e00")
        #expect(result["short_register"] as? String == "6700")
        #expect(authenticator.credentials().first?.rpId == "")
    }

    @Test(arguments: [
        (VirtualAuthenticator.ProtocolVersion.ctap2, true), (.ctap2, false), (.ctap2_1, true), (.ctap2_1, false),
    ])
    func builtInUserVerificationSucceedsOrFailsAsSet(
        protocolVersion: VirtualAuthenticator.ProtocolVersion, isUserVerified: Bool
    ) async throws {
        let authenticator = try VirtualAuthenticator(
            options: Options(protocolVersion: protocolVersion, hasUserVerification: true, isUserVerified: isUserVerified))
        let result = try await FidoClientFixture.run(authenticator, "user-verification")
        if isUserVerified {
            #expect(result["uv_option"] as? Int == 0x45, "\(result)")  // UP, UV, AT
        } else {
            #expect((result["uv_option"] as? [String: Any])?["ctap"] as? String == "OPERATION_DENIED", "\(result)")
        }
        if protocolVersion == .ctap2_1 {
            if isUserVerified {
                #expect(result["uv_token"] as? Int == 0x45, "\(result)")
                #expect(result["uv_retries"] as? Int == 8)
            } else {
                #expect(result["uv_token"] as? String == "UV_INVALID", "\(result)")
            }
        } else {
            #expect(result["uv_token"] == nil)
        }
    }

    // MARK: The automation API

    @Test func credentialsAreAddedListedAndRemoved() throws {
        let authenticator = try VirtualAuthenticator(options: Options(hasResidentKey: false))
        let first = VirtualAuthenticator.Credential(
            credentialId: Data([1]), isResidentCredential: false, rpId: "a.example", signingKey: P256.Signing.PrivateKey())
        try authenticator.addCredential(first)
        #expect(throws: VirtualAuthenticatorError.self) { try authenticator.addCredential(first) }
        var resident = first
        resident.credentialId = Data([2])
        resident.isResidentCredential = true
        resident.userHandle = Data([9])
        #expect(throws: VirtualAuthenticatorError.self) { try authenticator.addCredential(resident) }
        var badKey = first
        badKey.credentialId = Data([3])
        badKey.privateKey = Data([0x30, 0x00])
        #expect(throws: VirtualAuthenticatorError.self) { try authenticator.addCredential(badKey) }
        var second = first
        second.credentialId = Data([4])
        try authenticator.addCredential(second)
        #expect(authenticator.credentials().map(\.credentialId) == [Data([1]), Data([4])])
        #expect(try authenticator.credentials().first?.signingKey().rawRepresentation == first.signingKey().rawRepresentation)
        #expect(authenticator.removeCredential(id: Data([1])))
        #expect(!authenticator.removeCredential(id: Data([1])))
        authenticator.removeAllCredentials()
        #expect(authenticator.credentials().isEmpty)
    }

    @Test func stopRemovesTheSocketAndHasNoEffectTwice() throws {
        let path: String
        do {
            let authenticator = try VirtualAuthenticator()
            path = authenticator.socketPath
            #expect(FileManager.default.fileExists(atPath: path))
            authenticator.stop()
            #expect(!FileManager.default.fileExists(atPath: path))
            authenticator.stop()
        }
        let released = try VirtualAuthenticator()
        let releasedPath = released.socketPath
        _ = consume released
        #expect(!FileManager.default.fileExists(atPath: releasedPath))
        #expect(throws: VirtualAuthenticatorError.self) { try VirtualAuthenticator(options: Options(pin: "12")) }
    }

    @Test func socketAtAGivenPathThatExistsIsRefused() throws {
        let first = try VirtualAuthenticator()
        #expect(throws: VirtualAuthenticatorError.self) { try VirtualAuthenticator(socketPath: first.socketPath) }
        #expect(FileManager.default.fileExists(atPath: first.socketPath))
    }
}

/// Runs the python3-fido2 fixture against an authenticator and reads the JSON it prints.
enum FidoClientFixture {
    static let script = Checkout.fixture("WebAuthn").appendingPathComponent("webauthn_client.py").path

    static func run(
        _ authenticator: VirtualAuthenticator, _ scenario: String, _ arguments: [String] = []
    ) async throws -> [String: Any] {
        // A liveness bound for a whole client run (Python's start, then several round trips, some
        // waiting for touches): a CI run with everything else beside it took over 30 s.
        let output = try await ScriptRunner.run(
            "/usr/bin/python3", [script, authenticator.socketPath, scenario] + arguments,
            timeout: Patience.scaled(.seconds(90)) / .seconds(1))
        try #require(!output.timedOut, "the client hung: \(output.standardError)\n\(output.stacks ?? "")")
        try #require(output.status == 0, "the client failed: \(output.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(output.standardOutput)")
    }
}

/// Bytes as lowercase hex, as the fixture prints them, and back.
enum Hex {
    static func string(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func bytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
