import Foundation
import WebviewHost

/// The languages a sign-in page is asked for, as WebKit takes them (`"fr-FR"`, `"fr"`).
enum SignInLanguages {
    /// ``WebviewHost/WebviewLocalization/preferredLanguages`` as language tags, each region's
    /// language after it (`pt_BR` → `pt-BR`, `pt`), without duplicates.
    static func tags() -> [String] {
        var tags: [String] = []
        for language in WebviewLocalization.preferredLanguages {
            let name = language.split(separator: ".").first.map(String.init) ?? language
            let parts = name.split(whereSeparator: { $0 == "_" || $0 == "-" || $0 == "@" }).map(String.init)
            guard let base = parts.first?.lowercased(), !base.isEmpty, base != "c", base != "posix" else { continue }
            if parts.count > 1, parts[1].count == 2 { tags.append("\(base)-\(parts[1].uppercased())") }
            tags.append(base)
        }
        var seen = Set<String>()
        return tags.filter { seen.insert($0).inserted }
    }

    /// `body` with a NULL-terminated `const char *` array of `strings`.
    static func withCStrings<Result>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Result) -> Result {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}
