import Foundation
import ScenarioSupport
import Testing

@Suite("ARCHITECTURE.md agrees with the package: one row per target, and every path it names exists")
struct ArchitectureMapTests {
    static func read(_ name: String) throws -> String {
        try String(contentsOf: Checkout.root.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("Every target of Package.swift has a row in ARCHITECTURE.md's module map, and every row names a target")
    func mapMatchesPackage() throws {
        let targets = ArchitectureMap.targets(inManifest: try Self.read("Package.swift"))
        let mapped = ArchitectureMap.modules(inDocument: try Self.read("ARCHITECTURE.md"))
        let changelog = (try? Self.read("CHANGELOG.md")) ?? ""
        #expect(targets.count > 10, "Package.swift's targets were not found: \(targets.sorted())")
        #expect(mapped.count > 10, "ARCHITECTURE.md has no module table (a table whose header's first cell is `module`)")
        let problems = ArchitectureMap.problems(
            targets: targets, mapped: mapped, renames: ArchitectureMap.renames(inChangelog: changelog))
        #expect(problems.isEmpty, "\n\(problems.joined(separator: "\n"))")
    }

    @Test("Every path ARCHITECTURE.md names in backticks exists")
    func pathsExist() throws {
        let root = Checkout.root
        let document = try Self.read("ARCHITECTURE.md")
        #expect(ArchitectureMap.paths(inDocument: document).count > 10)
        let missing = ArchitectureMap.missingPaths(in: document, root: root)
        #expect(missing.isEmpty, "\n\(missing.joined(separator: "\n"))")
    }

    @Test("A path is text in backticks under a top folder; a missing one is reported")
    func readsPaths() throws {
        let root = Checkout.root
        let document = "See `Sources/WebviewHost`, `Sources/Gone.swift`, `Tests/*Scenarios`, `WebviewHost` and `Package.swift`."
        #expect(ArchitectureMap.paths(inDocument: document) == ["Sources/WebviewHost", "Sources/Gone.swift"])
        #expect(ArchitectureMap.missingPaths(in: document, root: root) == ["ARCHITECTURE.md names `Sources/Gone.swift`, which does not exist"])
    }

    static let manifest = """
        let package = Package(
            name: "P",
            products: [.library(name: "Product", targets: ["A"])],
            dependencies: [.package(url: "https://example.com/x", from: "1.0.0")],
            targets: [
                .target(name: "A", dependencies: [.product(name: "Logging", package: "swift-log")]),
                // .target(name: "Commented"),
                .systemLibrary(
                    name: "CLib",
                    pkgConfig: "lib"),
                .testTarget(name: "ATests", dependencies: [.target(name: "A")]),
            ]
        )
        package.targets += [.executableTarget(name: "Tool", path: "Tools/Tool")]
        """

    static let document = """
        # Map

        | module | job |
        |---|---|
        | `A` | the core |
        | `CLib`, `ATests` | C and tests |

        | folder | what |
        |---|---|
        | `Shared` | not a target: another table |
        """

    @Test("Targets are read from every constructor, over several lines and after the package; comments and products are not")
    func readsTargets() {
        #expect(ArchitectureMap.targets(inManifest: Self.manifest) == ["A", "CLib", "ATests", "Tool"])
    }

    @Test("Only tables headed `module` are the map; a row may name several modules")
    func readsModuleTables() {
        #expect(ArchitectureMap.modules(inDocument: Self.document) == ["A", "CLib", "ATests"])
    }

    @Test("A target without a row, and a row without a target, are reported by name")
    func reportsBothWays() {
        let problems = ArchitectureMap.problems(
            targets: ArchitectureMap.targets(inManifest: Self.manifest),
            mapped: ArchitectureMap.modules(
                inDocument: Self.document.replacingOccurrences(of: "| `A` | the core |", with: "| `A` | the core |\n| `Gone` | removed |")))
        #expect(problems == [
            "Package.swift's target `Tool` has no row in ARCHITECTURE.md's module map",
            "ARCHITECTURE.md's module map names `Gone`, which is no target of Package.swift",
        ])
    }

    @Test("A rename the CHANGELOG lists is accepted while pending, and once made, but not for another name")
    func acceptsListedRenames() {
        let changelog = """
            | old | new |
            |---|---|
            | `Tool` | `ToolGTK3` |
            """
        let renames = ArchitectureMap.renames(inChangelog: changelog)
        #expect(renames == ["Tool": "ToolGTK3"])
        let before: Set = ["A", "Tool"]
        let after: Set = ["A", "ToolGTK3"]
        #expect(ArchitectureMap.problems(targets: before, mapped: ["A", "ToolGTK3"], renames: renames).isEmpty)
        #expect(ArchitectureMap.problems(targets: after, mapped: ["A", "ToolGTK3"], renames: renames).isEmpty)
        #expect(ArchitectureMap.problems(targets: before, mapped: ["A", "ToolGTK4"], renames: renames).count == 2)
        // Once renamed, the old name is a stale row.
        #expect(ArchitectureMap.problems(targets: after, mapped: ["A", "Tool"], renames: renames) == [
            "Package.swift's target `ToolGTK3` has no row in ARCHITECTURE.md's module map",
            "ARCHITECTURE.md's module map names `Tool`, which is no target of Package.swift",
        ])
    }
}
