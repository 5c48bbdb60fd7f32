import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// The embedded provider's statics and the toolkit integration per isolated scope (issue 35): what
/// a task in `WebviewProviderRegistry.withIsolatedRegistry` (and
/// `ToolkitIntegration.withIsolatedIntegration`) sets is its own; the process's value stays.
@Suite("The embedded provider's settings are isolated per scope", .desktop)
struct IsolatedSettingsTests {
    /// What one task saw.
    struct Seen: Equatable, CustomStringConvertible {
        var applicationID: String?
        var permissions: [String]?
        var followsColorScheme: Bool?
        var toolkit: String?

        var description: String {
            "\(applicationID ?? "-"), \(permissions ?? []), \(followsColorScheme.map(String.init) ?? "-"), \(toolkit ?? "-")"
        }
    }

    @Test(
        "Two concurrent isolated scopes each see, set and hand down their own settings; a detached task and the process see the process's",
        arguments: Platform.x11)
    func concurrentScopes(_ platform: Platform) async throws {
        let report = try await ScenarioRunner.run(
            EmbeddedScenario.isolatedSettings, in: platform.toolkit.program, display: platform.display)
        func seen(_ prefix: String) -> Seen {
            Seen(
                applicationID: report[.settingApplicationID.prefixed(by: prefix)],
                permissions: report[.settingPermissions.prefixed(by: prefix)],
                followsColorScheme: report[.settingFollowsColorScheme.prefixed(by: prefix)],
                toolkit: report[.settingToolkit.prefixed(by: prefix)])
        }
        let process = Seen(applicationID: "org.example.Process", permissions: [], followsColorScheme: true, toolkit: "process")
        #expect(seen("before.") == process)
        let scopes = [
            Seen(applicationID: "org.example.first", permissions: ["notifications"], followsColorScheme: false, toolkit: "first"),
            Seen(applicationID: "org.example.second", permissions: ["clipboard", "geolocation"], followsColorScheme: true, toolkit: "second"),
        ]
        for scope in scopes {
            let name = scope.toolkit!
            var entry = process
            entry.toolkit = name
            #expect(seen(name + ".entry.") == entry, "a scope starts with the process's settings (and its own toolkit)")
            #expect(seen(name + ".set.") == scope, "\(name) sees what it set, not the other scope's")
            #expect(seen(name + ".child.") == scope, "\(name)'s child task inherits its scope")
            #expect(seen(name + ".detached.") == process, "a detached task (as a GLib callback) sees the process's")
        }
        #expect(seen("after.") == process, "no scope changed the process's settings")
    }
}
