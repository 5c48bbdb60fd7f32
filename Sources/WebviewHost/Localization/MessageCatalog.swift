import Foundation

/// A compiled GNU gettext catalog (`.mo`), read into a table: the original string (with its
/// context, `context\u{4}msgid`) to its translation. Plural entries are skipped: the library's
/// texts have none (they say "Time left: 4:59", not "5 minutes").
struct MessageCatalog: Sendable {
    let translations: [String: String]

    /// `nil` when the file is missing, or not a `.mo` file.
    init?(contentsOf url: URL) {
        guard let data = try? Data(contentsOf: url, options: .mappedIfSafe) else { return nil }
        self.init(data: data)
    }

    init?(data: Data) {
        let bytes = [UInt8](data)
        guard bytes.count >= 28 else { return nil }
        func word(_ offset: Int, bigEndian: Bool) -> Int? {
            guard offset >= 0, offset + 4 <= bytes.count else { return nil }
            let value = bytes[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return Int(bigEndian ? value : value.byteSwapped)
        }
        // The magic number 0x950412de in the file's byte order.
        let bigEndian: Bool
        switch word(0, bigEndian: true) {
        case 0x9504_12DE: bigEndian = true
        case 0xDE12_0495: bigEndian = false
        default: return nil
        }
        guard let count = word(8, bigEndian: bigEndian), let originals = word(12, bigEndian: bigEndian),
            let translated = word(16, bigEndian: bigEndian), count < 100_000
        else { return nil }
        func string(table: Int, index: Int) -> String? {
            guard let length = word(table + 8 * index, bigEndian: bigEndian),
                let offset = word(table + 8 * index + 4, bigEndian: bigEndian), offset + length <= bytes.count
            else { return nil }
            return String(bytes: bytes[offset..<offset + length], encoding: .utf8)
        }
        var table: [String: String] = [:]
        for index in 0..<count {
            guard let original = string(table: originals, index: index), let translation = string(table: translated, index: index)
            else { return nil }
            // The header (empty msgid) and plural entries (NUL-separated forms) are left out.
            guard !original.isEmpty, !original.contains("\0"), !translation.isEmpty else { continue }
            table[original] = translation
        }
        translations = table
    }

    func translation(of text: String, context: String) -> String? {
        translations["\(context)\u{4}\(text)"]
    }
}
