
/// One WebAuthn ceremony on the person's security keys: waits for a key, lets the person pick one
/// of several by touch, asks the PIN when the key needs it (again after a wrong one, with the tries
/// left), and returns what the key made or signed. The blocking libfido2 calls run on each key's
/// own thread; cancelling the task sends CTAPHID_CANCEL to every key it opened.
public struct SecurityKeyCeremony: Sendable {
    /// How long the whole ceremony may take (WebAuthn's `timeout`, clamped by the caller).
    public var timeout: Duration
    /// The keys there now (`SecurityKeyDevice.connected()`; a test passes its own).
    public var devices: @Sendable () -> [SecurityKeyDevice]
    /// How often the list of keys is read again while none is there.
    public var insertionCheck: Duration = .milliseconds(500)

    public init(timeout: Duration, devices: @escaping @Sendable () -> [SecurityKeyDevice] = { SecurityKeyDevice.connected() }) {
        self.timeout = timeout
        self.devices = devices
    }

    /// authenticatorMakeCredential on the key the person picks.
    public func makeCredential(_ request: CredentialCreationRequest, prompt: any SecurityKeyPrompt) async throws(SecurityKeyError) -> MadeCredential {
        let site = request.relyingParty.id
        return try await run(prompt: prompt, site: site) { key, pin, remaining throws(SecurityKeyError) in
            if request.userVerification == .required, key.capabilities.isFIDO2 == false {
                throw SecurityKeyError(.notAllowed, detail: "a U2F key cannot verify the person")
            }
            return try await key.makeCredential(request, pin: pin, timeout: remaining)
        } needsPIN: { key in
            Self.needsPIN(key.capabilities, userVerification: request.userVerification, creating: true)
        }
    }

    /// authenticatorGetAssertion on the key the person picks; with several of its accounts for the
    /// site, the one the person chooses.
    public func getAssertion(_ request: AssertionRequest, prompt: any SecurityKeyPrompt) async throws(SecurityKeyError) -> SignedAssertion {
        let site = request.relyingPartyID
        let assertions = try await run(prompt: prompt, site: site) { key, pin, remaining throws(SecurityKeyError) in
            try await key.getAssertions(request, pin: pin, timeout: remaining)
        } needsPIN: { key in
            Self.needsPIN(key.capabilities, userVerification: request.userVerification, creating: false)
        }
        guard assertions.count > 1 else {
            guard let only = assertions.first else { throw SecurityKeyError(.noCredentials, detail: "the key signed nothing") }
            return only
        }
        let accounts = assertions.map { SecurityKeyAccount(name: $0.userName, displayName: $0.userDisplayName) }
        guard let chosen = await prompt.chooseAccount(for: site, among: accounts), assertions.indices.contains(chosen) else {
            await prompt.finish(nil)
            throw SecurityKeyError(.notAllowed, detail: "no account was chosen")
        }
        return assertions[chosen]
    }

    /// Whether the PIN is asked before the first try: the key has one set, has no built-in
    /// verification, and the site wants verification (or a CTAP 2.0 key makes a credential, which
    /// it refuses without the PIN once one is set).
    static func needsPIN(_ capabilities: SecurityKeyCapabilities, userVerification: UserVerification, creating: Bool) -> Bool {
        guard capabilities.clientPIN == true, capabilities.builtInUserVerification != true else { return false }
        if userVerification != .discouraged { return true }
        return creating && !capabilities.versions.contains("FIDO_2_1")
    }

    private func run<Value: Sendable>(
        prompt: any SecurityKeyPrompt, site: String,
        _ operation: @escaping @Sendable (SecurityKey, _ pin: String?, _ remaining: Duration) async throws(SecurityKeyError) -> Value,
        needsPIN: @escaping @Sendable (SecurityKey) -> Bool
    ) async throws(SecurityKeyError) -> Value {
        let deadline = ContinuousClock.now + timeout
        var cancelledAtPIN = false
        /// The PIN from the person; `nil` (cancelled) ends the ceremony as `notAllowed`.
        func askPIN(retriesLeft: Int?) async throws(SecurityKeyError) -> String {
            guard let pin = await prompt.askPIN(for: site, retriesLeft: retriesLeft) else {
                cancelledAtPIN = true
                throw SecurityKeyError(.notAllowed, detail: "the person cancelled at the PIN")
            }
            return pin
        }
        do throws(SecurityKeyError) {
            let key = try await chooseKey(prompt: prompt, deadline: deadline)
            var pin: String?
            if needsPIN(key) {
                let retriesLeft = try? await key.pinRetries()
                pin = try await askPIN(retriesLeft: retriesLeft.flatMap { $0 <= 3 ? $0 : nil })
            }
            while true {
                await prompt.show(.touchKey(site: site))
                do throws(SecurityKeyError) {
                    let remaining = deadline - ContinuousClock.now
                    guard remaining > .zero else { throw SecurityKeyError(.notAllowed, detail: "the ceremony's time ran out") }
                    let value = try await operation(key, pin, remaining)
                    await prompt.finish(nil)
                    return value
                } catch {
                    guard error.code == .pinInvalid || error.code == .pinRequired else { throw error }
                    let retriesLeft = try? await key.pinRetries()
                    if retriesLeft == 0 { throw SecurityKeyError(.pinBlocked, retriesLeft: 0, detail: "no PIN tries left") }
                    pin = try await askPIN(retriesLeft: error.code == .pinInvalid ? retriesLeft : nil)
                }
            }
        } catch {
            // A cancel at the PIN is the person's choice, not an error to show them.
            await prompt.finish(cancelledAtPIN ? nil : error)
            throw error
        }
    }

    /// The key to use: the only one there, or the one the person touches; waits for one to be
    /// plugged in.
    private func chooseKey(prompt: any SecurityKeyPrompt, deadline: ContinuousClock.Instant) async throws(SecurityKeyError) -> SecurityKey {
        var found = devices()
        if found.isEmpty { await prompt.show(.insertKey) }
        while found.isEmpty {
            guard ContinuousClock.now < deadline else { throw SecurityKeyError(.notAllowed, detail: "no security key was plugged in in time") }
            do { try await Task.sleep(for: insertionCheck) } catch { throw SecurityKeyError(.cancelled, detail: "cancelled") }
            found = devices()
        }
        var opened: [SecurityKey] = []
        for device in found {
            if let key = try? await SecurityKey.open(device) { opened.append(key) }
        }
        guard !opened.isEmpty else { throw SecurityKeyError(.deviceGone, detail: "no key could be opened: \(found)") }
        if opened.count == 1 { return opened[0] }
        await prompt.show(.touchToChoose(keys: opened.count))
        let keys = opened
        let touched: SecurityKey? = await withTaskGroup(of: SecurityKey?.self) { group in
            for key in keys {
                group.addTask {
                    do {
                        try await key.waitForTouch()
                        return key
                    } catch { return nil }
                }
            }
            var winner: SecurityKey?
            for await key in group where key != nil {
                winner = key
                break
            }
            group.cancelAll()
            for key in keys where key !== winner { key.cancel() }
            return winner
        }
        guard let touched else { throw SecurityKeyError(.cancelled, detail: "no key was touched") }
        return touched
    }
}
