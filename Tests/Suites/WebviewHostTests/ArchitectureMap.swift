import Foundation

/// Reads the module map of `ARCHITECTURE.md` and the targets of `Package.swift`, and says where
/// they disagree: the check that keeps the map true when a module is added, renamed or removed.
///
/// Names are read, never listed here. The map is every Markdown table whose header's first cell
/// is `module`; a row names its targets in backticks in its first cell (one or more). A rename
/// still to be made (`Package.swift` has the old name, the map the new one) is accepted when a
/// table of `CHANGELOG.md` whose header reads `old | new` says so. Every repository path the
/// document names in backticks must exist.
enum ArchitectureMap {
    /// The names of the targets `manifest` (the text of a `Package.swift`) declares, wherever in
    /// the file (`package.targets += [...]` included). Whole-line `//` comments are skipped, so a
    /// commented-out target does not count. A target whose name is computed is not seen.
    static func targets(inManifest manifest: String) -> Set<String> {
        let code = manifest.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            .joined(separator: "\n")
        // The constructors of `PackageDescription.Target` whose first argument is the target's name.
        let constructor = #/\.(?:target|executableTarget|testTarget|systemLibrary|binaryTarget|plugin|macro)\(\s*name:\s*"([^"]+)"/#
        return Set(code.matches(of: constructor).map { String($0.output.1) })
    }

    /// The names in backticks in the first cell of each row of `document`'s module tables.
    static func modules(inDocument document: String) -> Set<String> {
        Set(rows(ofTablesHeaded: { $0.first == "module" }, in: document).flatMap { backticked($0.first ?? "") })
    }

    /// Old name to new name, from `changelog`'s rename tables (header `old | new`, first two cells).
    static func renames(inChangelog changelog: String) -> [String: String] {
        var renames: [String: String] = [:]
        let isRenameTable: ([String]) -> Bool = { $0.count >= 2 && $0[0].hasPrefix("old") && $0[1].hasPrefix("new") }
        for row in rows(ofTablesHeaded: isRenameTable, in: changelog) where row.count >= 2 {
            for (old, new) in zip(backticked(row[0]), backticked(row[1])) { renames[old] = new }
        }
        return renames
    }

    /// What is wrong, one line per name: a target with no row, and a row that names no target.
    /// A rename `renames` lists is accepted while it is pending (the target has the old name, the
    /// map the new one, and no target has the new name yet).
    static func problems(targets: Set<String>, mapped: Set<String>, renames: [String: String] = [:]) -> [String] {
        let pendingRenames = renames.filter { old, new in targets.contains(old) && !targets.contains(new) }
        var problems: [String] = []
        for target in targets.sorted() where !mapped.contains(target) {
            if let new = pendingRenames[target], mapped.contains(new) { continue }
            problems.append("Package.swift's target `\(target)` has no row in ARCHITECTURE.md's module map")
        }
        let renamedTo = Set(pendingRenames.values)
        for name in mapped.sorted() where !targets.contains(name) && !renamedTo.contains(name) {
            problems.append("ARCHITECTURE.md's module map names `\(name)`, which is no target of Package.swift")
        }
        return problems
    }

    /// The repository paths `document` names in backticks on one line (code fences are not
    /// inline code): text starting with one of the package's top folders, without spaces or
    /// wildcards (`Sources/WebviewHost/WebAuthSession.swift`).
    static func paths(inDocument document: String) -> Set<String> {
        let tops = ["Sources/", "Tests/", "Plugins/", "Examples/", ".ci/"]
        let inline = document.split(separator: "\n").filter { !$0.hasPrefix("```") }.flatMap { backticked(String($0)) }
        return Set(inline.filter { text in
            tops.contains { text.hasPrefix($0) } && !text.contains { " *…<>".contains($0) }
        })
    }

    /// The paths of `document` that do not exist under `root`, one line each.
    static func missingPaths(in document: String, root: URL) -> [String] {
        paths(inDocument: document).sorted()
            .filter { !FileManager.default.fileExists(atPath: root.appendingPathComponent($0).path) }
            .map { "ARCHITECTURE.md names `\($0)`, which does not exist" }
    }

    // MARK: - Markdown

    /// The cells of the body rows of every table whose header cells (trimmed, lowercased)
    /// `isWanted` accepts.
    private static func rows(ofTablesHeaded isWanted: ([String]) -> Bool, in document: String) -> [[String]] {
        var rows: [[String]] = []
        var inWantedTable = false
        var previous: String?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("|") else {
                inWantedTable = false
                previous = nil
                continue
            }
            if isSeparator(trimmed) {
                // The line before the separator is the table's header.
                inWantedTable = previous.map { isWanted(cells(of: $0).map { $0.lowercased() }) } ?? false
            } else if inWantedTable {
                rows.append(cells(of: trimmed))
            }
            previous = trimmed
        }
        return rows
    }

    /// `|---|:---:|` and the like.
    private static func isSeparator(_ line: String) -> Bool {
        line.allSatisfy { "|-: ".contains($0) } && line.contains("-")
    }

    /// The cells of a table row, trimmed (a `|` inside backticks is not expected in these tables).
    private static func cells(of line: String) -> [String] {
        var parts = line.split(separator: "|", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        if parts.first == "" { parts.removeFirst() }
        if parts.last == "" { parts.removeLast() }
        return parts
    }

    /// Every `` `name` `` in `text`.
    private static func backticked(_ text: String) -> [String] {
        text.matches(of: #/`([^`]+)`/#).map { String($0.output.1) }
    }
}
