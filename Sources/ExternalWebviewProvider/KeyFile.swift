import Foundation

/// A small reader for the GKeyFile / desktop-entry syntax the descriptors use: `[Group]` headers,
/// `Key=Value` lines, `#` comments, the escapes `\s \n \t \r \\`, and `a;b;c` lists.
///
/// The same rules as GLib's `GKeyFile` for what descriptors use (this module depends on
/// `WebviewHost` alone and links no C library).
/// Localized keys (`Name[fr]`) are skipped; a key given twice in a group is an error, since a
/// descriptor that says two things is more likely a mistake than an override.
struct KeyFile {
    /// Keys and raw (unescaped) values, by group.
    private(set) var groups: [String: [String: String]] = [:]

    struct SyntaxError: Error, CustomStringConvertible {
        let line: Int
        let problem: String
        var description: String { "line \(line): \(problem)" }
    }

    init(parsing text: String) throws(SyntaxError) {
        var group: String?
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = rawLine.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw SyntaxError(line: number, problem: "a group header must look like [Group Name]")
                }
                let name = String(line.dropFirst().dropLast())
                if groups[name] != nil {
                    throw SyntaxError(line: number, problem: "the group [\(name)] appears twice")
                }
                groups[name] = [:]
                group = name
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw SyntaxError(line: number, problem: "expected Key=Value, a [Group] header or a # comment")
            }
            guard let group else {
                throw SyntaxError(line: number, problem: "a key comes before the first [Group] header")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { throw SyntaxError(line: number, problem: "a key has no name") }
            if key.contains("[") { continue }  // a localized value, e.g. Name[fr]
            guard key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw SyntaxError(line: number, problem: "the key \"\(key)\" may hold only A-Z, a-z, 0-9 and -")
            }
            if groups[group]?[key] != nil {
                throw SyntaxError(line: number, problem: "the key \(key) appears twice in [\(group)]")
            }
            let value = line[line.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            groups[group]?[key] = try Self.unescape(String(value), line: number)
        }
    }

    /// GKeyFile's escapes; any other backslash sequence is an error, as in GLib.
    private static func unescape(_ value: String, line: Int) throws(SyntaxError) -> String {
        guard value.contains("\\") else { return value }
        var result = ""
        var iterator = value.makeIterator()
        while let character = iterator.next() {
            guard character == "\\" else {
                result.append(character)
                continue
            }
            switch iterator.next() {
            case "s": result.append(" ")
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "r": result.append("\r")
            case "\\": result.append("\\")
            case ";": result.append("\\;")  // kept for list splitting
            case let other? where "\"`$".contains(other):
                // The Desktop Entry Specification unescapes the value first, then the Exec quoting.
                throw SyntaxError(
                    line: line,
                    problem: "unknown escape \\\(other) in a value (inside a quoted Exec argument, \(other) is written \\\\\(other))")
            case let other:
                throw SyntaxError(line: line, problem: "unknown escape \\\(other.map(String.init) ?? "") in a value")
            }
        }
        return result
    }

    /// A `;`-separated list (a trailing `;` is allowed; `\;` is a literal semicolon).
    static func list(_ value: String) -> [String] {
        var items: [String] = []
        var current = ""
        var escaped = false
        for character in value {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ";" {
                items.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { items.append(current) }
        return items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
