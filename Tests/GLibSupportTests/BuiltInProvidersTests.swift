import Foundation
import ScenarioSupport
import Testing

@Suite("The built-in providers through the default policy")
struct BuiltInProvidersTests {
    /// A desktop where no application handles https (an empty XDG data set).
    static func desktopWithoutBrowser() throws -> [String: String] {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-builtins-\(UUID().uuidString)")
        for folder in ["data", "config", "dirs"] {
            try FileManager.default.createDirectory(at: home.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        return [
            "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "XDG_DATA_DIRS": home.appendingPathComponent("dirs").path,
            "GSETTINGS_SCHEMA_DIR": "/usr/share/glib-2.0/schemas",
            "WEBVIEW_HOST_PROVIDER": "",
        ]
    }

    @Test("registerBuiltInProviders registers both; with a display and no browser the default is the embedded view")
    func builtIns() async throws {
        let report = try await ScenarioRunner.run("GLibScenarios", "built-ins", environment: try Self.desktopWithoutBrowser())
        #expect(report.strings("registered") == ["system-browser", "embedded"])
        #expect(report.string("default") == "embedded")
        let refused = try #require(report.string("authenticationSession"))
        #expect(refused.hasPrefix("providerUnavailable"))
        #expect(refused.contains("x-scheme-handler/https"), "the reason says what is missing: \(refused)")
        #expect(report.string("noDisplay")?.hasPrefix("providerUnavailable") == true)
        let help = try #require(report.string("help"))
        #expect(help.contains("system-browser - "))
        #expect(help.contains("embedded - "))
        #expect(help.contains("]: available"))
        #expect(help.contains("unavailable: "))
    }
}
