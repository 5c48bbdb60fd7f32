/// Scope lists as OAuth compares them: a set of space-free names, order and duplicates ignored.
package enum ScopeSet {
    /// The scopes split on spaces, without empty or repeated names, first occurrence kept.
    package static func normalized(_ scopes: [String]) -> [String] {
        var seen = Set<String>()
        return scopes.flatMap { $0.split(separator: " ").map(String.init) }.filter { seen.insert($0).inserted }
    }
}
