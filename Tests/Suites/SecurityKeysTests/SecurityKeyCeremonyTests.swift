import Foundation
import ScenarioSupport
import SecurityKeys
import Testing
import TestTraits
import WebviewHost
import WebviewHostTestKit

/// The person at the prompt, scripted: the PINs they type (`nil`: Cancel), the account they pick.
/// An actor of its own, not the main actor: the ceremonies here need no main thread at all.
actor ScriptedPrompt: SecurityKeyPrompt {
    var pins: [String?]
    let account: Int?
    private(set) var steps: [SecurityKeyStep] = []
    private(set) var pinQuestions: [Int?] = []
    private(set) var accountsShown: [[SecurityKeyAccount]] = []
    private(set) var finished: [SecurityKeyError?] = []
    /// Called at each step, as the person would act on it (touch a key, say).
    private let onStep: @Sendable (SecurityKeyStep) -> Void

    init(pins: [String?] = [], account: Int? = nil, onStep: @escaping @Sendable (SecurityKeyStep) -> Void = { _ in }) {
        self.pins = pins
        self.account = account
        self.onStep = onStep
    }

    func show(_ step: SecurityKeyStep) {
        steps.append(step)
        onStep(step)
    }

    func askPIN(for site: String, retriesLeft: Int?) -> String? {
        pinQuestions.append(retriesLeft)
        return pins.isEmpty ? nil : pins.removeFirst()
    }

    func chooseAccount(for site: String, among accounts: [SecurityKeyAccount]) -> Int? {
        accountsShown.append(accounts)
        return account
    }

    func finish(_ error: SecurityKeyError?) { finished.append(error) }
}

@Suite("SecurityKeys: WebAuthn ceremonies through libfido2 on virtual authenticators, checked by a relying party that is not ours", .desktop)
struct SecurityKeyCeremonyTests {
    static let origin = "https://login.example.com"
    static let rpID = "example.com"

    static func device(_ authenticator: VirtualAuthenticator) -> SecurityKeyDevice {
        SecurityKeyDevice(path: authenticator.socketPath, manufacturer: "test", product: "virtual", isVirtual: true)
    }

    /// `timeout` is the ceremony's whole deadline. By default a liveness bound, not a latency one: in a
    /// full CI run on two cores the test process's async work was seen to wait over 20 s to resume.
    static func ceremony(_ authenticators: [VirtualAuthenticator], timeout: Duration = Patience.scaled(.seconds(120))) -> SecurityKeyCeremony {
        let devices = authenticators.map(device)
        return SecurityKeyCeremony(timeout: timeout) { devices }
    }

    static func creation(_ clientData: ClientData, residentKey: Bool = false, verification: UserVerification = .discouraged, exclude: [[UInt8]] = [])
        -> CredentialCreationRequest
    {
        CredentialCreationRequest(
            clientDataHash: clientData.hash, relyingParty: RelyingParty(id: rpID, name: "Example"),
            user: UserEntity(id: Array("alice-id".utf8), name: "alice", displayName: "Alice"), algorithms: [-7],
            excludeCredentials: exclude, residentKey: residentKey, userVerification: verification)
    }

    static func challenge() -> [UInt8] { (0..<32).map { _ in UInt8.random(in: 0...255) } }

    /// Registers at the relying party: its verdict and the credential data it keeps.
    static func register(_ made: MadeCredential, _ clientData: ClientData, verification: UserVerification) async throws -> [String: Any] {
        try await RelyingPartyServer.check("register", [
            "rpId": rpID, "origin": origin, "challenge": Base64URL.encode(clientData.challenge),
            "userVerification": verification.rawValue, "clientDataJSON": Base64URL.encode(clientData.json),
            "attestationObject": Base64URL.encode(made.attestationObject),
        ])
    }

    static func authenticate(_ signed: SignedAssertion, _ clientData: ClientData, credentialData: String, verification: UserVerification) async throws -> [String: Any] {
        try await RelyingPartyServer.check("authenticate", [
            "rpId": rpID, "origin": origin, "challenge": Base64URL.encode(clientData.challenge),
            "userVerification": verification.rawValue, "credentialData": credentialData,
            "credentialId": Base64URL.encode(signed.credentialID), "clientDataJSON": Base64URL.encode(clientData.json),
            "authenticatorData": Base64URL.encode(signed.authenticatorData), "signature": Base64URL.encode(signed.signature),
        ])
    }

    @Test("Register and sign in: the credential's packed attestation and the assertion verify at python3-fido2's server; the sign count grows",
          arguments: [VirtualAuthenticator.ProtocolVersion.ctap2, .ctap2_1])
    func registerAndSignIn(_ version: VirtualAuthenticator.ProtocolVersion) async throws {
        let key = try VirtualAuthenticator(options: .init(protocolVersion: version))
        defer { key.stop() }
        let ceremony = Self.ceremony([key])
        let prompt = ScriptedPrompt()
        let creating = ClientData(kind: .create, challenge: Self.challenge(), origin: Self.origin)
        let made = try await ceremony.makeCredential(Self.creation(creating), prompt: prompt)
        #expect(made.format == "packed")
        #expect(made.algorithm == -7)
        #expect(made.publicKeyDER?.count == 91, "an ES256 SubjectPublicKeyInfo")
        let registered = try await Self.register(made, creating, verification: .discouraged)
        #expect(registered["ok"] as? Bool == true, "\(registered)")
        #expect(registered["attestationType"] as? String == "SELF", "\(registered)")
        #expect(registered["credentialId"] as? String == Base64URL.encode(made.credentialID))
        #expect(await prompt.steps == [.touchKey(site: Self.rpID)])
        #expect(await prompt.finished == [nil])

        var counts: [Int] = []
        for _ in 0..<2 {
            let getting = ClientData(kind: .get, challenge: Self.challenge(), origin: Self.origin)
            let signed = try await ceremony.getAssertion(
                AssertionRequest(relyingPartyID: Self.rpID, clientDataHash: getting.hash, allowCredentials: [made.credentialID], userVerification: .discouraged),
                prompt: ScriptedPrompt())
            #expect(signed.credentialID == made.credentialID)
            let verdict = try await Self.authenticate(signed, getting, credentialData: try #require(registered["credentialData"] as? String), verification: .discouraged)
            #expect(verdict["ok"] as? Bool == true, "\(verdict)")
            counts.append(verdict["signCount"] as? Int ?? -1)
        }
        #expect(counts[1] > counts[0], "the sign count grows: \(counts)")
        // A signature over another challenge does not verify: the relying party really checks.
        let other = ClientData(kind: .get, challenge: Self.challenge(), origin: Self.origin)
        let signed = try await ceremony.getAssertion(
            AssertionRequest(relyingPartyID: Self.rpID, clientDataHash: other.hash, allowCredentials: [made.credentialID]), prompt: ScriptedPrompt())
        let forged = ClientData(kind: .get, challenge: Self.challenge(), origin: Self.origin)
        let refused = try await Self.authenticate(signed, forged, credentialData: try #require(registered["credentialData"] as? String), verification: .discouraged)
        #expect(refused["ok"] as? Bool == false, "\(refused)")
    }

    @Test("PIN: asked before the key is used; a wrong one is asked again with the tries left; the right one gives a verified credential")
    func pin() async throws {
        let key = try VirtualAuthenticator(options: .init(protocolVersion: .ctap2_1, pin: "1234"))
        defer { key.stop() }
        let prompt = ScriptedPrompt(pins: ["9999", "1234"])
        let creating = ClientData(kind: .create, challenge: Self.challenge(), origin: Self.origin)
        let made = try await Self.ceremony([key]).makeCredential(Self.creation(creating, verification: .required), prompt: prompt)
        let questions = await prompt.pinQuestions
        #expect(questions.count == 2, "\(questions)")
        #expect(questions.last == 7, "the second question says 7 tries are left: \(questions)")
        #expect(key.pinRetries == 8, "the right PIN gives the tries back")
        let registered = try await Self.register(made, creating, verification: .required)
        #expect(registered["ok"] as? Bool == true, "\(registered)")
        #expect(((registered["flags"] as? Int) ?? 0) & 0x04 != 0, "user verified")

        // Cancelled at the PIN: nothing is made, and the prompt shows no error.
        let cancelling = ScriptedPrompt(pins: [nil])
        await #expect(throws: SecurityKeyError.self) {
            _ = try await Self.ceremony([key]).makeCredential(Self.creation(creating, verification: .required), prompt: cancelling)
        }
        #expect(await cancelling.finished == [nil])
        #expect(key.credentials().count == 1)
    }

    @Test("A key already registered (excludeCredentials): credentialExcluded; a key without the allowed credential: noCredentials")
    func excludedAndUnknown() async throws {
        let key = try VirtualAuthenticator()
        defer { key.stop() }
        let creating = ClientData(kind: .create, challenge: Self.challenge(), origin: Self.origin)
        let made = try await Self.ceremony([key]).makeCredential(Self.creation(creating), prompt: ScriptedPrompt())
        do {
            _ = try await Self.ceremony([key]).makeCredential(Self.creation(creating, exclude: [made.credentialID]), prompt: ScriptedPrompt())
            Issue.record("an excluded credential made a new one")
        } catch {
            #expect(error.code == .credentialExcluded, "\(error)")
        }
        do {
            _ = try await Self.ceremony([key]).getAssertion(
                AssertionRequest(relyingPartyID: Self.rpID, clientDataHash: creating.hash, allowCredentials: [[1, 2, 3]]), prompt: ScriptedPrompt())
            Issue.record("an unknown credential signed")
        } catch {
            #expect(error.code == .noCredentials, "\(error)")
        }
        #expect(key.credentials().count == 1)
    }

    @Test("Cancel while the key waits for a touch: CTAPHID_CANCEL reaches the key, the ceremony ends as cancelled at once")
    func cancelReachesTheKey() async throws {
        let key = try VirtualAuthenticator(options: .init(userPresence: .waitForTouch))
        defer { key.stop() }
        let creating = ClientData(kind: .create, challenge: Self.challenge(), origin: Self.origin)
        let ceremony = Self.ceremony([key])
        let task = Task {
            try await ceremony.makeCredential(Self.creation(creating), prompt: ScriptedPrompt())
        }
        #expect(await key.waitUntil(timeout: Patience.event) { $0.isWaitingForTouch })
        let cancelled = ContinuousClock.now
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("the ceremony went on after its task was cancelled")
        } catch let error as SecurityKeyError {
            #expect(error.code == .cancelled, "\(error)")
        }
        #expect(ContinuousClock.now - cancelled < Patience.event, "ended without waiting for the key")
        #expect(await key.waitUntil(timeout: Patience.event) { $0.cancelsReceived >= 1 }, "the key received CTAPHID_CANCEL")
        #expect(key.credentials().isEmpty)
    }

    @Test("Two keys plugged in: the person touches one, the ceremony runs on it; the other is cancelled")
    func touchToChoose() async throws {
        let first = try VirtualAuthenticator(options: .init(userPresence: .waitForTouch))
        let second = try VirtualAuthenticator(options: .init(userPresence: .waitForTouch))
        defer {
            first.stop()
            second.stop()
        }
        // The person touches the second key when asked to choose, and again when asked to confirm.
        let prompt = ScriptedPrompt { step in
            switch step {
            case .touchToChoose, .touchKey:
                Task { if await second.waitUntil(timeout: Patience.event, { $0.isWaitingForTouch }) { second.touch() } }
            case .insertKey: break
            }
        }
        let creating = ClientData(kind: .create, challenge: Self.challenge(), origin: Self.origin)
        _ = try await Self.ceremony([first, second]).makeCredential(Self.creation(creating), prompt: prompt)
        let steps = await prompt.steps
        #expect(steps.first == .touchToChoose(keys: 2), "\(steps)")
        #expect(second.credentials().count == 1)
        #expect(first.credentials().isEmpty)
        #expect(await first.waitUntil(timeout: Patience.event) { $0.cancelsReceived >= 1 }, "the key not chosen was cancelled")
    }

    @Test("Two accounts on the key for the site (discoverable credentials, no allow list, the key verifying the person): the person chooses by name; their user handle comes back")
    func chooseAccount() async throws {
        // Names come back only when the key verified the person (CTAP 2.1): a key with built-in verification.
        let key = try VirtualAuthenticator(options: .init(protocolVersion: .ctap2_1, hasUserVerification: true, isUserVerified: true))
        defer { key.stop() }
        for (index, name) in ["alice", "bob"].enumerated() {
            let creating = ClientData(kind: .create, challenge: Self.challenge(), origin: Self.origin)
            var request = Self.creation(creating, residentKey: true)
            request.user = UserEntity(id: [UInt8(index + 1)], name: name, displayName: name.capitalized)
            _ = try await Self.ceremony([key]).makeCredential(request, prompt: ScriptedPrompt())
        }
        let prompt = ScriptedPrompt(account: 1)
        let getting = ClientData(kind: .get, challenge: Self.challenge(), origin: Self.origin)
        let signed = try await Self.ceremony([key]).getAssertion(
            AssertionRequest(relyingPartyID: Self.rpID, clientDataHash: getting.hash, userVerification: .preferred), prompt: prompt)
        let shown = try #require(await prompt.accountsShown.first)
        #expect(Set(shown.compactMap(\.name)) == ["alice", "bob"])
        let chosen = shown[1].name == "alice" ? [UInt8(1)] : [UInt8(2)]
        #expect(signed.userHandle == chosen)
    }

    @Test("A key that never answers: the ceremony's own deadline ends it as notAllowed, with no hang")
    func keyThatNeverAnswers() async throws {
        let key = try VirtualAuthenticator(options: .init(userPresence: .neverAnswer))
        defer { key.stop() }
        let creating = ClientData(kind: .create, challenge: Self.challenge(), origin: Self.origin)
        let started = ContinuousClock.now
        do {
            _ = try await Self.ceremony([key], timeout: .seconds(3)).makeCredential(Self.creation(creating), prompt: ScriptedPrompt())
            Issue.record("a key that never answers made a credential")
        } catch {
            #expect(error.code == .notAllowed, "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(3) + Patience.event)
    }
}
