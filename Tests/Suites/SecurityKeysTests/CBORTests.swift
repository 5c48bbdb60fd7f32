import Foundation
import SecurityKeys
import Testing

@Suite("CBOR (VirtualAuthenticator's codec)")
struct CBORTests {
    @Test(arguments: [
        (CBOR(0), "00"), (CBOR(23), "17"), (CBOR(24), "1818"), (CBOR(255), "18ff"), (CBOR(256), "190100"),
        (CBOR(65536), "1a00010000"), (CBOR.unsigned(UInt64.max), "1bffffffffffffffff"), (CBOR(-1), "20"),
        (CBOR(-25), "3818"), (CBOR(-7), "26"), (CBOR.negative(UInt64.max), "3bffffffffffffffff"),
        (.bytes([1, 2]), "420102"), ("a", "6161"), ("ü", "62c3bc"), ([1, [2, 3]], "8201820203"),
        (.bool(false), "f4"), (.bool(true), "f5"), (.null, "f6"), (.bytes([]), "40"), ("", "60"),
    ] as [(CBOR, String)])
    func encodesShortestFormsAndDecodesBack(value: CBOR, encoding: String) throws {
        #expect(Hex.string(value.encoded()) == encoding)
        #expect(try CBOR.decode(value.encoded()) == value)
    }

    @Test func mapKeysAreInCTAP2CanonicalOrder() throws {
        // A COSE key: 1, 3, -1, -2, -3 (shorter encodings first, then bytewise).
        let coseKey: CBOR = [-3: .bytes([3]), -1: 1, 3: -7, -2: .bytes([2]), 1: 2]
        #expect(Hex.string(coseKey.encoded()) == "a5010203262001214102224103")
        // Text keys: "up" before "rk"? Both 3 bytes: bytewise, so "rk" (0x72) before "up" (0x75); "plat" last.
        let options: CBOR = ["plat": false, "up": true, "rk": true, 10: 0, 100: 0]
        #expect(Hex.string(options.encoded()) == "a50a00" + "186400" + "62726bf5" + "627570f5" + "64706c6174f4")
    }

    @Test func accessorsAndSubscripts() throws {
        let map: CBOR = [1: "packed", "id": .bytes([7]), 2: [true]]
        let value = try CBOR.decode(map.encoded())
        #expect(value[1]?.textValue == "packed")
        #expect(value["id"]?.bytesValue == [7])
        #expect(value["id"]?.dataValue == Data([7]))
        #expect(value[2]?.arrayValue?.first?.boolValue == true)
        #expect(value[3] == nil)
        #expect(CBOR(-7).intValue == -7)
        #expect(CBOR.unsigned(UInt64.max).intValue == nil)
        #expect(CBOR("x")[1] == nil)
    }

    @Test(arguments: [
        ("", CBORDecodingError.Code.truncated), ("1a0001", .truncated), ("43010203ff", .trailingBytes),
        ("5f", .indefiniteLength), ("9f00ff", .indefiniteLength), ("ff", .indefiniteLength),
        ("1c", .reservedAdditionalInformation), ("c100", .tag), ("fa00000000", .unsupportedSimpleValue),
        ("f7", .unsupportedSimpleValue), ("62c328", .invalidUTF8), ("a201000100", .duplicateMapKey),
        ("5bffffffffffffffff", .truncated), ("9bffffffffffffffff", .lengthTooLarge),
        ("bbffffffffffffffff", .lengthTooLarge), ("a1", .lengthTooLarge), ("a1016261", .truncated),
    ] as [(String, CBORDecodingError.Code)])
    func malformedInputIsRefusedWithItsReason(input: String, code: CBORDecodingError.Code) {
        #expect(throws: CBORDecodingError.self) { try CBOR.decode(Hex.bytes(input) ?? [0xff]) }
        do {
            _ = try CBOR.decode(Hex.bytes(input) ?? [])
        } catch {
            #expect(error.code == code, "\(input)")
        }
    }

    @Test func nestingBeyondTheLimitIsRefused() throws {
        let deep = [UInt8](repeating: 0x81, count: 16) + [0x00]
        #expect(try CBOR.decode(deep).arrayValue != nil)
        let deeper = [UInt8](repeating: 0x81, count: 17) + [0x00]
        #expect(throws: CBORDecodingError(.tooDeep, at: 16)) { try CBOR.decode(deeper) }
        #expect(throws: CBORDecodingError.self) { try CBOR.decode([UInt8](repeating: 0x81, count: 100_000)) }
    }

    @Test func prefixDecodingSaysWhereTheItemEnds() throws {
        let (item, length) = try CBOR.decodePrefix([0xa1, 0x01, 0x02, 0xde, 0xad])
        #expect(item == [1: 2])
        #expect(length == 3)
    }
}
