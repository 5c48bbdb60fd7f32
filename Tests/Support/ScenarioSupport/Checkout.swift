public import Foundation

/// The source checkout the tests were built from, and the fixtures in it: the scripts, servers
/// and doubles the tests start, one folder each under `Tests/Fixtures` (`Tests/README.md` lists
/// them). Found from this file's own path, so a test needs the checkout it was built from.
public enum Checkout {
    /// The checkout's root, the folder that holds `Package.swift`.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Tests/Support/ScenarioSupport
        .deletingLastPathComponent()  // Tests/Support
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// `Tests/Fixtures/<name>` in this checkout, for example `fixture("Glewlwyd")`.
    public static func fixture(_ name: String) -> URL {
        root.appendingPathComponent("Tests/Fixtures").appendingPathComponent(name)
    }
}
