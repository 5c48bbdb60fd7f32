package import Foundation

/// A CBOR data item (RFC 8949) of the kinds CTAP2 uses: integers, byte and text strings, arrays,
/// maps, booleans and null. No floats, tags or indefinite lengths: CTAP2 forbids them.
///
/// ``encoded()`` writes CTAP2 canonical CBOR (shortest integer forms, map keys sorted by the
/// length of their encoding, then bytewise). ``decode(_:maxDepth:)`` is strict: it throws a
/// ``CBORDecodingError`` for truncated or malformed input instead of guessing.
package enum CBOR: Hashable, Sendable {
    /// A non-negative integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer (major type 1) whose value is `-1 - n`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    case map([CBOR: CBOR])
    case bool(Bool)
    case null

    /// An integer item, either major type as the sign requires.
    package init(_ value: Int) {
        self = value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// A byte string from any bytes (`Data`, a slice).
    package init(bytes: some Sequence<UInt8>) { self = .bytes(Array(bytes)) }
}

// MARK: Accessors

extension CBOR {
    /// The integer value, when this is an integer that fits an `Int`.
    package var intValue: Int? {
        switch self {
        case .unsigned(let value): value <= UInt64(Int.max) ? Int(value) : nil
        case .negative(let value): value <= UInt64(Int.max) ? -1 - Int(value) : nil
        default: nil
        }
    }

    /// The bytes of a byte string.
    package var bytesValue: [UInt8]? { if case .bytes(let value) = self { value } else { nil } }
    /// The bytes of a byte string, as `Data`.
    package var dataValue: Data? { bytesValue.map { Data($0) } }
    package var textValue: String? { if case .text(let value) = self { value } else { nil } }
    package var arrayValue: [CBOR]? { if case .array(let value) = self { value } else { nil } }
    package var mapValue: [CBOR: CBOR]? { if case .map(let value) = self { value } else { nil } }
    package var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    package var isNull: Bool { self == .null }

    /// The value under `key` when this is a map (nil when it is not a map or has no such key).
    /// Integer and string literals are keys: `response[1]`, `user["id"]`.
    package subscript(key: CBOR) -> CBOR? { mapValue?[key] }
}

// MARK: Literals

extension CBOR: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    package init(integerLiteral value: Int) { self.init(value) }
    package init(stringLiteral value: String) { self = .text(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(arrayLiteral elements: CBOR...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (CBOR, CBOR)...) {
        self = .map(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: Encoding

extension CBOR {
    /// The CTAP2 canonical encoding of this item.
    package func encoded() -> [UInt8] {
        var output: [UInt8] = []
        encode(into: &output)
        return output
    }

    /// The CTAP2 canonical encoding, as `Data`.
    package var encodedData: Data { Data(encoded()) }

    private func encode(into output: inout [UInt8]) {
        switch self {
        case .unsigned(let value): Self.appendHead(major: 0, argument: value, to: &output)
        case .negative(let value): Self.appendHead(major: 1, argument: value, to: &output)
        case .bytes(let value):
            Self.appendHead(major: 2, argument: UInt64(value.count), to: &output)
            output += value
        case .text(let value):
            let utf8 = Array(value.utf8)
            Self.appendHead(major: 3, argument: UInt64(utf8.count), to: &output)
            output += utf8
        case .array(let items):
            Self.appendHead(major: 4, argument: UInt64(items.count), to: &output)
            for item in items { item.encode(into: &output) }
        case .map(let entries):
            Self.appendHead(major: 5, argument: UInt64(entries.count), to: &output)
            // CTAP2 canonical order: shorter encoded key first, then bytewise.
            let sorted = entries.map { (key: $0.key.encoded(), value: $0.value) }.sorted { left, right in
                left.key.count != right.key.count
                    ? left.key.count < right.key.count : left.key.lexicographicallyPrecedes(right.key)
            }
            for entry in sorted {
                output += entry.key
                entry.value.encode(into: &output)
            }
        case .bool(let value): output.append(value ? 0xf5 : 0xf4)
        case .null: output.append(0xf6)
        }
    }

    private static func appendHead(major: UInt8, argument: UInt64, to output: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: output.append(type | UInt8(argument))
        case 24...0xff: output += [type | 24, UInt8(argument)]
        case 0x100...0xffff: output += [type | 25] + bigEndian(argument, count: 2)
        case 0x1_0000...0xffff_ffff: output += [type | 26] + bigEndian(argument, count: 4)
        default: output += [type | 27] + bigEndian(argument, count: 8)
        }
    }

    private static func bigEndian(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}

// MARK: Decoding

/// Why bytes are not one well-formed CBOR item of the kinds ``CBOR`` represents; `offset` is
/// where in the input the problem starts.
package struct CBORDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Code: Hashable, Sendable {
        /// The input ends inside an item.
        case truncated
        /// Bytes follow the item (only ``CBOR/decode(_:maxDepth:)``, which wants one item exactly).
        case trailingBytes
        /// An indefinite-length string, array or map (CTAP2 forbids them).
        case indefiniteLength
        /// Additional information 28–30, reserved by RFC 8949.
        case reservedAdditionalInformation
        /// A tag (major type 6): CTAP2 uses none.
        case tag
        /// A float, `undefined` or another simple value than false, true and null.
        case unsupportedSimpleValue
        /// A text string that is not UTF-8.
        case invalidUTF8
        /// A map with the same key twice.
        case duplicateMapKey
        /// Arrays and maps nested deeper than the limit.
        case tooDeep
        /// A length larger than the rest of the input could hold.
        case lengthTooLarge
    }

    package var code: Code
    package var offset: Int

    package init(_ code: Code, at offset: Int) {
        self.code = code
        self.offset = offset
    }

    package var description: String { "malformed CBOR at byte \(offset): \(code)" }
}

extension CBOR {
    /// The nesting of arrays and maps the decoder accepts unless told otherwise.
    package static let defaultMaximumDepth = 16

    /// Decodes exactly one item from `bytes`; throws ``CBORDecodingError`` for anything else,
    /// trailing bytes included.
    package static func decode(_ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaximumDepth) throws(
        CBORDecodingError
    ) -> CBOR {
        let input = Array(bytes)
        var reader = Reader(bytes: input, maxDepth: maxDepth)
        let item = try reader.item(depth: 0)
        guard reader.offset == input.count else { throw CBORDecodingError(.trailingBytes, at: reader.offset) }
        return item
    }

    /// Decodes the first item of `bytes` and says how many bytes it took (for an item followed by
    /// other data, as a COSE key inside authenticator data).
    package static func decodePrefix(_ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaximumDepth) throws(
        CBORDecodingError
    ) -> (item: CBOR, length: Int) {
        var reader = Reader(bytes: Array(bytes), maxDepth: maxDepth)
        let item = try reader.item(depth: 0)
        return (item, reader.offset)
    }

    private struct Reader {
        let bytes: [UInt8]
        let maxDepth: Int
        var offset = 0

        init(bytes: [UInt8], maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
        }

        mutating func item(depth: Int) throws(CBORDecodingError) -> CBOR {
            let start = offset
            let initial = try byte()
            let major = initial >> 5, info = initial & 0x1f
            if major == 7 {
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                case 28...30: throw CBORDecodingError(.reservedAdditionalInformation, at: start)
                case 31: throw CBORDecodingError(.indefiniteLength, at: start)
                default: throw CBORDecodingError(.unsupportedSimpleValue, at: start)
                }
            }
            let argument = try argument(info: info, start: start)
            switch major {
            case 0: return .unsigned(argument)
            case 1: return .negative(argument)
            case 2: return .bytes(try take(argument, start: start))
            case 3:
                let utf8 = try take(argument, start: start)
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw CBORDecodingError(.invalidUTF8, at: start)
                }
                return .text(text)
            case 4:
                guard depth < maxDepth else { throw CBORDecodingError(.tooDeep, at: start) }
                // Every item takes at least one byte: a count beyond the rest is a lie, not an allocation.
                guard argument <= UInt64(bytes.count - offset) else { throw CBORDecodingError(.lengthTooLarge, at: start) }
                var items: [CBOR] = []
                items.reserveCapacity(Int(argument))
                for _ in 0..<argument { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                guard depth < maxDepth else { throw CBORDecodingError(.tooDeep, at: start) }
                guard argument <= UInt64(bytes.count - offset) / 2 else {
                    throw CBORDecodingError(.lengthTooLarge, at: start)
                }
                var entries: [CBOR: CBOR] = [:]
                for _ in 0..<argument {
                    let keyOffset = offset
                    let key = try item(depth: depth + 1)
                    let value = try item(depth: depth + 1)
                    guard entries.updateValue(value, forKey: key) == nil else {
                        throw CBORDecodingError(.duplicateMapKey, at: keyOffset)
                    }
                }
                return .map(entries)
            default:
                throw CBORDecodingError(.tag, at: start)
            }
        }

        private mutating func byte() throws(CBORDecodingError) -> UInt8 {
            guard offset < bytes.count else { throw CBORDecodingError(.truncated, at: offset) }
            defer { offset += 1 }
            return bytes[offset]
        }

        private mutating func argument(info: UInt8, start: Int) throws(CBORDecodingError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24...27:
                let count = 1 << Int(info - 24)
                var value: UInt64 = 0
                for _ in 0..<count { value = value << 8 | UInt64(try byte()) }
                return value
            case 31: throw CBORDecodingError(.indefiniteLength, at: start)
            default: throw CBORDecodingError(.reservedAdditionalInformation, at: start)
            }
        }

        private mutating func take(_ count: UInt64, start: Int) throws(CBORDecodingError) -> [UInt8] {
            guard count <= UInt64(bytes.count - offset) else { throw CBORDecodingError(.truncated, at: start) }
            defer { offset += Int(count) }
            return Array(bytes[offset..<offset + Int(count)])
        }
    }
}
