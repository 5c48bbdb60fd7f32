import CGLib
import Foundation
import GLibSupport

/// A descriptor's key file, read by GLib's `GKeyFile` (`g_key_file_load_from_data`): `[Group]`
/// headers, `Key=Value` lines, `#` comments, the escapes `\s \n \t \r \\`, and `a;b;c` lists
/// (`\;` a literal semicolon), as GLib and desktop entries read them.
///
/// Stricter than `GKeyFile` where a descriptor that says two things is more likely a mistake
/// than an override: a key given twice in a group is refused (`GKeyFile` keeps the last), and a
/// key name may hold only A-Z, a-z, 0-9 and -. Localized keys (`Name[fr]`) are skipped. A group
/// given twice is merged, as `GKeyFile` does. Everything is copied out at once; no GLib object
/// outlives the initializer.
struct KeyFile {
    /// Why a text is not a key file, in words an administrator can act on.
    struct SyntaxError: Error, CustomStringConvertible {
        let problem: String
        var description: String { problem }
    }

    /// One key's value, read both ways `GKeyFile` reads values; which one applies is the key's to say.
    private struct Value {
        /// `g_key_file_get_string`: the escapes applied.
        var string: Result<String, SyntaxError>
        /// `g_key_file_get_string_list`: split at `;`, the escapes applied.
        var list: Result<[String], SyntaxError>
    }

    private var groups: [String: [String: Value]] = [:]

    /// What `GKeyFile` accepts as an escape, and what to write instead inside a quoted `Exec` argument.
    private static let escapesHint =
        "a backslash in a key file starts only \\s, \\n, \\t, \\r or \\\\ (and \\; in a list); "
        + "inside a quoted Exec argument, \" is written \\\\\", ` is written \\\\` and $ is written \\\\$"

    init(parsing text: String) throws(SyntaxError) {
        let file = g_key_file_new()
        defer { g_key_file_free(file) }
        do {
            _ = try withGError { g_key_file_load_from_data(file, text, gsize(text.utf8.count), G_KEY_FILE_NONE, $0) }
        } catch {
            throw SyntaxError(
                problem: "\(error.message) (expected Key=Value lines, [Group] headers and # comments, "
                    + "and no key before the first [Group] header)")
        }
        for group in StringArray.take(g_key_file_get_groups(file, nil)) {
            var values: [String: Value] = [:]
            for key in StringArray.take(g_key_file_get_keys(file, group, nil, nil)) {
                if key.contains("[") { continue }  // a localized value, e.g. Name[fr]
                guard key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                    throw SyntaxError(problem: "the key \"\(key)\" in [\(group)] may hold only A-Z, a-z, 0-9 and -")
                }
                guard values[key] == nil else { throw SyntaxError(problem: "the key \(key) appears twice in [\(group)]") }
                let value = Value(
                    string: Result { () throws(SyntaxError) in try Self.string(file, group, key) },
                    list: Result { () throws(SyntaxError) in try Self.list(file, group, key) })
                if case .failure(let error) = value.string, case .failure = value.list { throw error }
                values[key] = value
            }
            groups[group] = values
        }
    }

    /// Whether the file has `group`.
    func has(_ group: String) -> Bool { groups[group] != nil }

    /// `key`'s value in `group`, its escapes applied; `nil` when the key is not there.
    func string(_ key: String, in group: String) throws(SyntaxError) -> String? {
        try groups[group]?[key]?.string.get()
    }

    /// `key`'s value in `group` as a `;`-separated list (a trailing `;` is allowed, `\;` is a
    /// literal semicolon), each item trimmed, empty ones dropped; `[]` when the key is not there.
    func list(_ key: String, in group: String) throws(SyntaxError) -> [String] {
        let items = try groups[group]?[key]?.list.get() ?? []
        return items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `g_key_file_get_string`, which may return a value and an error together; the value counts
    /// only without the error.
    private static func string(_ file: OpaquePointer?, _ group: String, _ key: String) throws(SyntaxError) -> String {
        var error: UnsafeMutablePointer<GError>?
        let value = g_key_file_get_string(file, group, key, &error)
        defer { g_free(value) }
        if let error { throw SyntaxError(problem: "\(GLibError(consuming: error).message) (\(escapesHint))") }
        return value.map { String(cString: $0) } ?? ""
    }

    /// `g_key_file_get_string_list`, read like ``string(_:_:_:)``.
    private static func list(_ file: OpaquePointer?, _ group: String, _ key: String) throws(SyntaxError) -> [String] {
        var error: UnsafeMutablePointer<GError>?
        let items = StringArray.take(g_key_file_get_string_list(file, group, key, nil, &error))
        if let error { throw SyntaxError(problem: "\(GLibError(consuming: error).message) (\(escapesHint))") }
        return items
    }
}
