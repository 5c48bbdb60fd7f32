import SecurityKeys

/// The parameters map of a CTAP2 command, read with the errors CTAP2 prescribes: a missing
/// required member is `CTAP2_ERR_MISSING_PARAMETER`, a wrong type `CTAP2_ERR_CBOR_UNEXPECTED_TYPE`.
struct CTAP2Parameters {
    let map: [CBOR: CBOR]

    func value(_ key: CBOR) throws(CTAP2Failure) -> CBOR {
        guard let value = map[key] else { throw .status(CTAP2Status.missingParameter) }
        return value
    }

    static func bytes(_ value: CBOR) throws(CTAP2Failure) -> [UInt8] {
        guard let bytes = value.bytesValue else { throw .status(CTAP2Status.cborUnexpectedType) }
        return bytes
    }

    static func text(_ value: CBOR) throws(CTAP2Failure) -> String {
        guard let text = value.textValue else { throw .status(CTAP2Status.cborUnexpectedType) }
        return text
    }

    static func int(_ value: CBOR) throws(CTAP2Failure) -> Int {
        guard let int = value.intValue else { throw .status(CTAP2Status.cborUnexpectedType) }
        return int
    }

    static func array(_ value: CBOR) throws(CTAP2Failure) -> [CBOR] {
        guard let array = value.arrayValue else { throw .status(CTAP2Status.cborUnexpectedType) }
        return array
    }

    static func map(_ value: CBOR) throws(CTAP2Failure) -> [CBOR: CBOR] {
        guard let map = value.mapValue else { throw .status(CTAP2Status.cborUnexpectedType) }
        return map
    }

    static func bool(_ value: CBOR) throws(CTAP2Failure) -> Bool {
        guard let bool = value.boolValue else { throw .status(CTAP2Status.cborUnexpectedType) }
        return bool
    }

    func bytes(_ key: CBOR) throws(CTAP2Failure) -> [UInt8] { try Self.bytes(value(key)) }
    func text(_ key: CBOR) throws(CTAP2Failure) -> String { try Self.text(value(key)) }
    func int(_ key: CBOR) throws(CTAP2Failure) -> Int { try Self.int(value(key)) }
    func optionalBytes(_ key: CBOR) throws(CTAP2Failure) -> [UInt8]? { try map[key].map { v throws(CTAP2Failure) in try Self.bytes(v) } }
    func optionalText(_ key: CBOR) throws(CTAP2Failure) -> String? { try map[key].map { v throws(CTAP2Failure) in try Self.text(v) } }
    func optionalInt(_ key: CBOR) throws(CTAP2Failure) -> Int? { try map[key].map { v throws(CTAP2Failure) in try Self.int(v) } }
    func optionalArray(_ key: CBOR) throws(CTAP2Failure) -> [CBOR]? { try map[key].map { v throws(CTAP2Failure) in try Self.array(v) } }

    /// The `options` member: each known option a boolean.
    func options(_ key: CBOR) throws(CTAP2Failure) -> (rk: Bool?, up: Bool?, uv: Bool?) {
        guard let value = map[key] else { return (nil, nil, nil) }
        let options = try Self.map(value)
        func option(_ name: CBOR) throws(CTAP2Failure) -> Bool? {
            try options[name].map { v throws(CTAP2Failure) in try Self.bool(v) }
        }
        return (try option("rk"), try option("up"), try option("uv"))
    }
}
