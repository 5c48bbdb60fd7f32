import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// A process loads GTK 3 or GTK 4, never both (their symbols clash, and GTK aborts when a second
/// major version registers its types). `ldd` on the programs `swift build --build-tests` builds
/// beside this test bundle shows what each one loads, its whole dependency tree included.
@Suite("Toolkit links: each program loads one GTK or none", .desktop)
struct ToolkitLinkTests {
    /// Libraries of one toolkit, by the start of their file name (`libgtk-4.so.1`).
    static let gtk3 = ["libgtk-3.so", "libgdk-3.so", "libwebkit2gtk-4.1.so", "libjavascriptcoregtk-4.1.so"]
    static let gtk4 = ["libgtk-4.so", "libwebkitgtk-6.0.so", "libjavascriptcoregtk-6.0.so"]

    struct Expectation: Sendable, CustomTestStringConvertible {
        let program: String
        let links: [String]
        let neverLinks: [String]
        var testDescription: String { program }
    }

    static let programs: [Expectation] = [
        // The GTK 4 demo (GtkApplication, WebKitGTK 6.0, BuiltInWebviewProvidersGTK4).
        .init(program: "SignInDemoGTK4", links: gtk4, neverLinks: gtk3),
        // The GTK 3 demo, the other way round.
        .init(program: "SignInDemoGTK3", links: gtk3, neverLinks: gtk4),
        // WebviewHost + SystemBrowserProvider + SignIn only: what both toolkits' apps share.
        .init(program: "ToolkitNeutralApp", links: [], neverLinks: gtk3 + gtk4 + ["libgdk-", "libwebkit"]),
        // The GObject layer's libraries, one per toolkit, which C, Python, GJS and Vala apps load.
        .init(program: "libwebviewhost-gtk3.so", links: gtk3, neverLinks: gtk4),
        .init(program: "libwebviewhost-gtk4.so", links: gtk4, neverLinks: gtk3),
    ]

    @Test("ldd: the program links its toolkit and never the other one", arguments: programs)
    func links(_ expectation: Expectation) async throws {
        let libraries = try await Self.linkedLibraries(of: expectation.program)
        for library in expectation.links {
            #expect(libraries.contains { $0.hasPrefix(library) }, "\(expectation.program) does not link \(library)*; it links \(libraries.sorted())")
        }
        for library in expectation.neverLinks {
            let found = libraries.filter { $0.hasPrefix(library) }
            #expect(found.isEmpty, "\(expectation.program) links \(found), which it must never load")
        }
    }

    /// The file names of every shared library `ldd` resolves for `program`, a product of this
    /// build. Fails when the program is missing, `ldd` fails, or a library is not found.
    static func linkedLibraries(of program: String) async throws -> Set<String> {
        let path = ScenarioRunner.productsDirectory.appendingPathComponent(program).path
        try #require(
            FileManager.default.isExecutableFile(atPath: path),
            "\(path) is missing: build it with `swift build --build-tests` (every executable target is built)")
        // CleanSpawn: a child with an empty signal mask, its pipes read off the cooperative pool.
        let run = try CleanSpawn(["ldd", path], environment: ProcessInfo.processInfo.environment)
        let collected = await run.collect()
        let output = String(decoding: collected.output, as: UTF8.self)
        try #require(collected.status == 0, "ldd \(path) exited \(collected.status): \(String(decoding: collected.errors, as: UTF8.self))")
        // Lines are "\tlibgtk-4.so.1 => /lib/x86_64-linux-gnu/libgtk-4.so.1 (0x...)", or
        // "\t/lib64/ld-linux-x86-64.so.2 (0x...)" for the loader.
        var libraries = Set<String>()
        for line in output.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            try #require(!text.contains("not found"), "ldd \(program): \(text)")
            guard let name = text.split(separator: " ").first else { continue }
            libraries.insert(String(name.split(separator: "/").last ?? name))
        }
        try #require(libraries.contains { $0.hasPrefix("libc.so") }, "ldd \(program) printed no libraries:\n\(output)")
        return libraries
    }
}
