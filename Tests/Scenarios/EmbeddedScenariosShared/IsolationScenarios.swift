// The embedded provider's settings and the toolkit integration per isolated scope (issue 35): two
// tasks in `WebviewProviderRegistry.withIsolatedRegistry` (and `ToolkitIntegration`'s own scope)
// set their own values at once and each reads back its own; a detached task, as a GLib callback,
// sees the process's, which neither changed. What a session keeps of its starting task's values
// is in SurfaceScenarios ("permissions-click-isolated").
#if WEBKITGTK_6
import EmbeddedWebviewProviderGTK4
#else
import EmbeddedWebviewProviderGTK3
#endif
import GLibSupport
import ScenarioSupport
import WebviewHost

@MainActor
extension EmbeddedScenarios {
    static let isolatedSettings: Scenario = { _ in await isolatedSettingsScenario() }
}

/// The provider's settings and the toolkit as the calling task sees them, under `prefix`.
@MainActor
private func settingsSeen(prefix: String) -> ScenarioReport {
    var facts = ScenarioReport()
    facts[.settingApplicationID.prefixed(by: prefix)] = EmbeddedWebviewProvider.applicationID ?? "nil"
    facts[.settingPermissions.prefixed(by: prefix)] = EmbeddedWebviewProvider.allowedPermissions.map(\.rawValue).sorted()
    facts[.settingFollowsColorScheme.prefixed(by: prefix)] = EmbeddedWebviewProvider.followsDesktopColorScheme
    facts[.settingToolkit.prefixed(by: prefix)] = ToolkitIntegration.current?.name ?? "nil"
    return facts
}

@MainActor
private final class Rendezvous {
    private var arrived = 0
    /// Returns once `count` callers have arrived.
    func meet(_ count: Int) async {
        arrived += 1
        while arrived < count { await Task.yield() }
    }
}

@MainActor
func isolatedSettingsScenario() async -> ScenarioReport {
    EmbeddedWebviewProvider.applicationID = "org.example.Process"
    EmbeddedWebviewProvider.allowedPermissions = []
    EmbeddedWebviewProvider.followsDesktopColorScheme = true
    ToolkitIntegration.current = ToolkitIntegration(name: "process", launchContext: { _ in nil }, parentIdentifier: { _ in nil })
    var facts = settingsSeen(prefix: "before.")
    let scopes: [(name: String, permissions: Set<SignInPermission>, follows: Bool)] = [
        ("first", [.notifications], false), ("second", [.geolocation, .clipboard], true),
    ]
    let entered = Rendezvous(), set = Rendezvous()
    var tasks: [Task<ScenarioReport, Never>] = []
    for scope in scopes {
        tasks.append(Task { @MainActor in
            let toolkit = ToolkitIntegration(name: scope.name, launchContext: { _ in nil }, parentIdentifier: { _ in nil })
            return await ToolkitIntegration.withIsolatedIntegration(toolkit) {
                await WebviewProviderRegistry.withIsolatedRegistry {
                    var facts = settingsSeen(prefix: scope.name + ".entry.")
                    await entered.meet(scopes.count)
                    EmbeddedWebviewProvider.applicationID = "org.example." + scope.name
                    EmbeddedWebviewProvider.allowedPermissions = scope.permissions
                    EmbeddedWebviewProvider.followsDesktopColorScheme = scope.follows
                    await set.meet(scopes.count)  // both scopes have set theirs
                    facts.merge(settingsSeen(prefix: scope.name + ".set."))
                    facts.merge(await Task { @MainActor in settingsSeen(prefix: scope.name + ".child.") }.value)
                    facts.merge(await Task.detached { @MainActor in settingsSeen(prefix: scope.name + ".detached.") }.value)
                    return facts
                }
            }
        })
    }
    var seen = ScenarioReport()
    for task in tasks { seen.merge(await task.value) }
    facts.merge(seen)
    facts.merge(settingsSeen(prefix: "after."))
    return facts
}
