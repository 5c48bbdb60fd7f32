internal import CFIDO2

/// What a key said of itself (authenticatorGetInfo); a U2F-only key says nothing and gets the
/// defaults (no discoverable credentials, no user verification).
public struct SecurityKeyCapabilities: Sendable, Equatable {
    /// `FIDO_2_0`, `FIDO_2_1`, `U2F_V2`, ...
    public let versions: [String]
    /// Whether the key stores discoverable credentials (`rk`).
    public let residentKeys: Bool
    /// `clientPin`: `true` a PIN is set, `false` the key can have one and has none, `nil` no PIN.
    public let clientPIN: Bool?
    /// `uv`: `true` built-in verification (a fingerprint) set up, `false` not set up, `nil` none.
    public let builtInUserVerification: Bool?
    /// COSE algorithms it makes (empty: it did not say; ES256 is what every key makes).
    public let algorithms: [Int32]
    public let transports: [String]
    public let aaguid: [UInt8]

    public var isFIDO2: Bool { versions.contains { $0.hasPrefix("FIDO_2") } }

    init(reading device: OpaquePointer) {
        guard fido_dev_is_fido2(device), let info = fido_cbor_info_new() else {
            self.init(versions: ["U2F_V2"], options: [:], algorithms: [], transports: [], aaguid: [])
            return
        }
        var owned: OpaquePointer? = info
        defer { fido_cbor_info_free(&owned) }
        guard fido_dev_get_cbor_info(device, info) == FIDO_OK else {
            self.init(versions: ["FIDO_2_0"], options: [:], algorithms: [], transports: [], aaguid: [])
            return
        }
        let strings = { (pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, count: Int) -> [String] in
            guard let pointer else { return [] }
            return (0..<count).compactMap { pointer[$0].map { String(cString: $0) } }
        }
        let names = strings(fido_cbor_info_options_name_ptr(info), fido_cbor_info_options_len(info))
        var options: [String: Bool] = [:]
        if let values = fido_cbor_info_options_value_ptr(info) {
            for (index, name) in names.enumerated() { options[name] = values[index] }
        }
        self.init(
            versions: strings(fido_cbor_info_versions_ptr(info), fido_cbor_info_versions_len(info)),
            options: options,
            algorithms: (0..<fido_cbor_info_algorithm_count(info)).map { fido_cbor_info_algorithm_cose(info, $0) },
            transports: strings(fido_cbor_info_transports_ptr(info), fido_cbor_info_transports_len(info)),
            aaguid: SecurityKey.bytes(fido_cbor_info_aaguid_ptr(info), fido_cbor_info_aaguid_len(info)))
    }

    init(versions: [String], options: [String: Bool], algorithms: [Int32], transports: [String], aaguid: [UInt8]) {
        self.versions = versions
        self.residentKeys = options["rk"] ?? false
        self.clientPIN = options["clientPin"]
        self.builtInUserVerification = options["uv"]
        self.algorithms = algorithms
        self.transports = transports
        self.aaguid = aaguid
    }
}

extension SecurityKeyError {
    /// A libfido2 status in the library's terms.
    static func from(_ status: Int32, opening device: SecurityKeyDevice? = nil) -> SecurityKeyError {
        let name = FIDOLibrary.name(status)
        let code: Code
        switch status {
        case FIDO_ERR_OPERATION_DENIED, FIDO_ERR_NOT_ALLOWED, FIDO_ERR_USER_ACTION_TIMEOUT, FIDO_ERR_ACTION_TIMEOUT,
            FIDO_ERR_USER_PRESENCE_REQUIRED, FIDO_ERR_UP_REQUIRED:
            code = .notAllowed
        case FIDO_ERR_CREDENTIAL_EXCLUDED: code = .credentialExcluded
        case FIDO_ERR_NO_CREDENTIALS: code = .noCredentials
        case FIDO_ERR_PIN_REQUIRED: code = .pinRequired
        case FIDO_ERR_PIN_INVALID, FIDO_ERR_PIN_AUTH_INVALID, FIDO_ERR_PIN_POLICY_VIOLATION: code = .pinInvalid
        case FIDO_ERR_PIN_AUTH_BLOCKED: code = .pinAuthBlocked
        case FIDO_ERR_PIN_BLOCKED: code = .pinBlocked
        case FIDO_ERR_PIN_NOT_SET: code = .pinNotSet
        case FIDO_ERR_UV_BLOCKED: code = .uvBlocked
        case FIDO_ERR_UNSUPPORTED_ALGORITHM: code = .unsupportedAlgorithm
        case FIDO_ERR_KEEPALIVE_CANCEL: code = .cancelled
        case FIDO_ERR_TX, FIDO_ERR_RX: code = .deviceGone
        default: code = .other
        }
        let detail = device.map { "\(name) opening \($0)" } ?? name
        return SecurityKeyError(code, fidoStatus: status, detail: detail)
    }
}
