import GLibSupport
import Testing

/// `ToolkitIntegration.current` in `withIsolatedIntegration`: each scope (a parallel test) has its
/// own, which its child tasks inherit, and the process's stays as it was.
@Suite("ToolkitIntegration.withIsolatedIntegration")
@MainActor
struct ToolkitIntegrationIsolationTests {
    static func toolkit(_ name: String) -> ToolkitIntegration {
        ToolkitIntegration(name: name, launchContext: { _ in nil }, parentIdentifier: { _ in "x11:\(name)" })
    }

    @MainActor final class Count {
        var value = 0
    }

    /// What one scope saw: on entry, after both scopes set theirs, in a child task, in a detached task.
    struct Seen: Sendable, Equatable {
        var onEntry: String?
        var afterSet: String?
        var child: String?
        var detached: String?
    }

    @Test("Two concurrent scopes each see, set and hand down their own integration; the process's is left alone")
    func concurrentScopes() async {
        let processWide = ToolkitIntegration.current?.name
        let entered = Count(), set = Count()
        var tasks: [String: Task<Seen, Never>] = [:]
        for name in ["first", "second"] {
            tasks[name] = Task { @MainActor in
                await ToolkitIntegration.withIsolatedIntegration(Self.toolkit(name)) {
                    var seen = Seen(onEntry: ToolkitIntegration.current?.name)
                    entered.value += 1
                    while entered.value < 2 { await Task.yield() }  // both scopes are open now
                    ToolkitIntegration.current = Self.toolkit(name + " set")
                    set.value += 1
                    while set.value < 2 { await Task.yield() }  // and both have set theirs
                    seen.afterSet = ToolkitIntegration.current?.name
                    seen.child = await Task { @MainActor in ToolkitIntegration.current?.name }.value
                    seen.detached = await Task.detached { @MainActor in ToolkitIntegration.current?.name }.value
                    return seen
                }
            }
        }
        var seen: [String: Seen] = [:]
        for (name, task) in tasks { seen[name] = await task.value }
        for name in ["first", "second"] {
            #expect(
                seen[name] == Seen(onEntry: name, afterSet: name + " set", child: name + " set", detached: processWide),
                "\(name): \(String(describing: seen[name]))")
        }
        #expect(ToolkitIntegration.current?.name == processWide, "the process's integration is unchanged")
    }

    @Test("A scope with no integration sees none, whatever the process has; nested scopes do not leak out")
    func nestedScopes() async {
        await ToolkitIntegration.withIsolatedIntegration(Self.toolkit("outer")) {
            await ToolkitIntegration.withIsolatedIntegration(nil) {
                #expect(ToolkitIntegration.current == nil)
                ToolkitIntegration.current = Self.toolkit("inner")
                #expect(ToolkitIntegration.current?.name == "inner")
            }
            #expect(ToolkitIntegration.current?.name == "outer")
        }
    }
}
