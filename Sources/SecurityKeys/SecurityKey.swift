internal import CFIDO2
internal import Foundation
internal import Synchronization

/// One security key, opened: libfido2's `fido_dev_t`, used on a thread of its own (every call
/// blocks until the key answers), one call at a time. `cancel()` is the one call made from any
/// thread: it sends CTAPHID_CANCEL (`fido_dev_cancel`), and the call waiting on the key returns.
public final class SecurityKey: @unchecked Sendable {
    // @unchecked: `device` is touched only on `queue`, except by `fido_dev_cancel` (which writes
    // one CANCEL report and is made for being called while another call waits) and by deinit.
    public let descriptor: SecurityKeyDevice
    public let capabilities: SecurityKeyCapabilities
    private let device: OpaquePointer
    private let queue: DispatchQueue

    private init(descriptor: SecurityKeyDevice, device: OpaquePointer, capabilities: SecurityKeyCapabilities, queue: DispatchQueue) {
        self.descriptor = descriptor
        self.device = device
        self.capabilities = capabilities
        self.queue = queue
    }

    /// Opens `descriptor` (CTAPHID's INIT and, for a FIDO2 key, its authenticatorGetInfo), off the
    /// calling thread.
    public static func open(_ descriptor: SecurityKeyDevice) async throws(SecurityKeyError) -> SecurityKey {
        FIDOLibrary.initialize()
        let queue = DispatchQueue(label: "WebviewHost.SecurityKey \(descriptor.path)")
        let opened: Result<SecurityKey, SecurityKeyError> = await withCheckedContinuation { continuation in
            queue.async {
                guard let device = fido_dev_new() else {
                    return continuation.resume(returning: .failure(SecurityKeyError(.other, detail: "fido_dev_new failed")))
                }
                if descriptor.isVirtual {
                    var io = VirtualAuthenticatorIO.functions
                    _ = fido_dev_set_io_functions(device, &io)
                }
                let status = fido_dev_open(device, descriptor.path)
                guard status == FIDO_OK else {
                    var owned: OpaquePointer? = device
                    fido_dev_free(&owned)
                    return continuation.resume(returning: .failure(SecurityKeyError.from(status, opening: descriptor)))
                }
                let capabilities = SecurityKeyCapabilities(reading: device)
                continuation.resume(returning: .success(SecurityKey(descriptor: descriptor, device: device, capabilities: capabilities, queue: queue)))
            }
        }
        return try opened.get()
    }

    deinit {
        let device = UncheckedDevice(pointer: device)
        queue.async {
            var owned: OpaquePointer? = device.pointer
            fido_dev_close(owned)
            fido_dev_free(&owned)
        }
    }

    /// Sends CTAPHID_CANCEL: the call waiting for a touch returns `.cancelled`. Any thread.
    public func cancel() {
        _ = fido_dev_cancel(device)
    }

    /// Runs `body` on the key's thread; Swift cancellation reaches the key.
    private func run<Value: Sendable>(_ body: @escaping @Sendable (OpaquePointer) -> Result<Value, SecurityKeyError>) async throws(SecurityKeyError) -> Value {
        let device = UncheckedDevice(pointer: device)
        let result: Result<Value, SecurityKeyError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: body(device.pointer)) }
            }
        } onCancel: {
            cancel()
        }
        return try result.get()
    }

    /// Waits for a touch on this key (`fido_dev_get_touch_begin`/`_status`): how a person picks
    /// one of several keys. Cancel the others with `cancel()` once one is touched.
    public func waitForTouch() async throws(SecurityKeyError) {
        let cancelled = Mutex(false)
        let device = UncheckedDevice(pointer: device)
        let outcome: Result<Void, SecurityKeyError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.async {
                    continuation.resume(returning: Self.touch(device.pointer, until: { cancelled.withLock { $0 } }))
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
            cancel()
        }
        try outcome.get()
    }

    private static func touch(_ device: OpaquePointer, until cancelled: () -> Bool) -> Result<Void, SecurityKeyError> {
        let begun = fido_dev_get_touch_begin(device)
        guard begun == FIDO_OK else { return .failure(SecurityKeyError.from(begun)) }
        while !cancelled() {
            var touched: Int32 = 0
            let status = fido_dev_get_touch_status(device, &touched, 200)
            guard status == FIDO_OK else { return .failure(SecurityKeyError.from(status)) }
            if touched != 0 { return .success(()) }
        }
        return .failure(SecurityKeyError(.cancelled, detail: "cancelled"))
    }

    /// PIN tries left (`fido_dev_get_retry_count`).
    public func pinRetries() async throws(SecurityKeyError) -> Int {
        try await run { device in
            var retries: Int32 = 0
            let status = fido_dev_get_retry_count(device, &retries)
            return status == FIDO_OK ? .success(Int(retries)) : .failure(SecurityKeyError.from(status))
        }
    }

    /// authenticatorMakeCredential (`fido_dev_make_cred`), with the PIN when the key needs it.
    public func makeCredential(_ request: CredentialCreationRequest, pin: String? = nil, timeout: Duration) async throws(SecurityKeyError) -> MadeCredential {
        let algorithm = try chooseAlgorithm(request.algorithms)
        let builtInUV = capabilities.builtInUserVerification == true
        return try await run { device in
            guard let credential = fido_cred_new() else { return .failure(SecurityKeyError(.other, detail: "fido_cred_new failed")) }
            var owned: OpaquePointer? = credential
            defer { fido_cred_free(&owned) }
            _ = fido_dev_set_timeout(device, Self.milliseconds(timeout))
            var status = fido_cred_set_type(credential, algorithm)
            if status == FIDO_OK {
                status = request.clientDataHash.withUnsafeBufferPointer { fido_cred_set_clientdata_hash(credential, $0.baseAddress, $0.count) }
            }
            if status == FIDO_OK { status = fido_cred_set_rp(credential, request.relyingParty.id, request.relyingParty.name) }
            if status == FIDO_OK {
                status = request.user.id.withUnsafeBufferPointer {
                    fido_cred_set_user(credential, $0.baseAddress, $0.count, request.user.name, request.user.displayName, nil)
                }
            }
            for excluded in request.excludeCredentials where status == FIDO_OK {
                status = excluded.withUnsafeBufferPointer { fido_cred_exclude(credential, $0.baseAddress, $0.count) }
            }
            if status == FIDO_OK, request.residentKey { status = fido_cred_set_rk(credential, FIDO_OPT_TRUE) }
            if status == FIDO_OK, pin == nil, builtInUV, request.userVerification != .discouraged {
                status = fido_cred_set_uv(credential, FIDO_OPT_TRUE)
            }
            guard status == FIDO_OK else { return .failure(SecurityKeyError.from(status)) }
            let started = ContinuousClock.now
            status = fido_dev_make_cred(device, credential, pin)
            guard status == FIDO_OK else { return .failure(Self.failure(status, started: started, timeout: timeout)) }
            let made = MadeCredential(
                credentialID: Self.bytes(fido_cred_id_ptr(credential), fido_cred_id_len(credential)),
                authenticatorData: Self.bytes(fido_cred_authdata_raw_ptr(credential), fido_cred_authdata_raw_len(credential)),
                format: fido_cred_fmt(credential).map { String(cString: $0) } ?? "none",
                attestationStatement: Self.attestationStatement(of: credential),
                algorithm: fido_cred_type(credential),
                residentKey: request.residentKey,
                publicKey: Self.bytes(fido_cred_pubkey_ptr(credential), fido_cred_pubkey_len(credential)))
            return .success(made)
        }
    }

    /// authenticatorGetAssertion (`fido_dev_get_assert`): one assertion per credential the key
    /// chose (several only for discoverable credentials, one per account on the key).
    public func getAssertions(_ request: AssertionRequest, pin: String? = nil, timeout: Duration) async throws(SecurityKeyError) -> [SignedAssertion] {
        let builtInUV = capabilities.builtInUserVerification == true
        return try await run { device in
            guard let assertion = fido_assert_new() else { return .failure(SecurityKeyError(.other, detail: "fido_assert_new failed")) }
            var owned: OpaquePointer? = assertion
            defer { fido_assert_free(&owned) }
            _ = fido_dev_set_timeout(device, Self.milliseconds(timeout))
            var status = fido_assert_set_rp(assertion, request.relyingPartyID)
            if status == FIDO_OK {
                status = request.clientDataHash.withUnsafeBufferPointer { fido_assert_set_clientdata_hash(assertion, $0.baseAddress, $0.count) }
            }
            for allowed in request.allowCredentials where status == FIDO_OK {
                status = allowed.withUnsafeBufferPointer { fido_assert_allow_cred(assertion, $0.baseAddress, $0.count) }
            }
            if status == FIDO_OK { status = fido_assert_set_up(assertion, FIDO_OPT_TRUE) }
            if status == FIDO_OK, pin == nil, builtInUV, request.userVerification != .discouraged {
                status = fido_assert_set_uv(assertion, FIDO_OPT_TRUE)
            }
            guard status == FIDO_OK else { return .failure(SecurityKeyError.from(status)) }
            let started = ContinuousClock.now
            status = fido_dev_get_assert(device, assertion, pin)
            guard status == FIDO_OK else { return .failure(Self.failure(status, started: started, timeout: timeout)) }
            let signed = (0..<fido_assert_count(assertion)).map { index in
                var credentialID = Self.bytes(fido_assert_id_ptr(assertion, index), fido_assert_id_len(assertion, index))
                // A key may leave the id out when the site allowed exactly one credential.
                if credentialID.isEmpty, request.allowCredentials.count == 1 { credentialID = request.allowCredentials[0] }
                let wrapped = Self.bytes(fido_assert_authdata_ptr(assertion, index), fido_assert_authdata_len(assertion, index))
                let userHandle = Self.bytes(fido_assert_user_id_ptr(assertion, index), fido_assert_user_id_len(assertion, index))
                return SignedAssertion(
                    credentialID: credentialID,
                    authenticatorData: CBORHead.unwrapBytes(wrapped) ?? wrapped,
                    signature: Self.bytes(fido_assert_sig_ptr(assertion, index), fido_assert_sig_len(assertion, index)),
                    userHandle: userHandle.isEmpty ? nil : userHandle,
                    userName: fido_assert_user_name(assertion, index).map { String(cString: $0) },
                    userDisplayName: fido_assert_user_display_name(assertion, index).map { String(cString: $0) })
            }
            return .success(signed)
        }
    }

    /// A key that said nothing until the call's deadline timed out (`notAllowed`, as a browser's
    /// ceremony that runs out of time), not a key gone.
    private static func failure(_ status: Int32, started: ContinuousClock.Instant, timeout: Duration) -> SecurityKeyError {
        if status == FIDO_ERR_RX, ContinuousClock.now - started >= timeout - .milliseconds(200) {
            return SecurityKeyError(.notAllowed, fidoStatus: status, detail: "the key did not answer within \(timeout)")
        }
        return SecurityKeyError.from(status)
    }

    /// The first of the site's algorithms this key makes (ES256, EdDSA, RS256 as libfido2 knows).
    private func chooseAlgorithm(_ wanted: [Int32]) throws(SecurityKeyError) -> Int32 {
        let known: Set<Int32> = [COSE_ES256, COSE_EDDSA, COSE_RS256]
        let offered = capabilities.algorithms.isEmpty ? [COSE_ES256] : capabilities.algorithms
        guard let algorithm = wanted.first(where: { known.contains($0) && offered.contains($0) }) else {
            throw SecurityKeyError(.unsupportedAlgorithm, detail: "the key makes \(offered), the site asked for \(wanted)")
        }
        return algorithm
    }

    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }

    static func bytes(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }

    /// The statement as the key sent it; for a U2F key libfido2 keeps the signature and
    /// certificate only, and the statement is built as WebAuthn's `fido-u2f` format says.
    private static func attestationStatement(of credential: OpaquePointer) -> [UInt8] {
        let sent = bytes(fido_cred_attstmt_ptr(credential), fido_cred_attstmt_len(credential))
        if !sent.isEmpty { return sent }
        let signature = bytes(fido_cred_sig_ptr(credential), fido_cred_sig_len(credential))
        let certificate = bytes(fido_cred_x5c_ptr(credential), fido_cred_x5c_len(credential))
        guard !signature.isEmpty else { return [0xA0] }
        var statement: [UInt8] = certificate.isEmpty ? [0xA1] : [0xA2]
        statement += CBORHead.text("sig") + CBORHead.bytes(signature)
        if !certificate.isEmpty { statement += CBORHead.text("x5c") + [0x81] + CBORHead.bytes(certificate) }
        return statement
    }
}

/// A `fido_dev_t *` carried to the key's thread.
private struct UncheckedDevice: @unchecked Sendable {
    let pointer: OpaquePointer
}
