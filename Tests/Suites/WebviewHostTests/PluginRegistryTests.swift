import Foundation
import Testing
import WebviewHost

/// The one registry store behind `WebviewProviderRegistry` and `TokenBrokerRegistry`: order,
/// replacement, removal, and task-local isolation that each store keeps to itself.
@Suite struct PluginRegistryTests {
    struct Plugin: Sendable {
        let id: String
        let priority: Int
    }

    static let plugins = TaskLocalStore { _ in PluginRegistry<String, Plugin>(id: \.id, priority: \.priority) }
    static let others = TaskLocalStore { _ in PluginRegistry<String, Plugin>(id: \.id, priority: \.priority) }

    @Test func pluginsAreListedByPriorityThenIdentifierAndReplacedByIdentifier() {
        let registry = PluginRegistry<String, Plugin>(id: \.id, priority: \.priority)
        for plugin in [Plugin(id: "b", priority: 1), Plugin(id: "a", priority: 1), Plugin(id: "c", priority: 5)] {
            registry.register(plugin)
        }
        #expect(registry.all.map(\.id) == ["c", "a", "b"])
        registry.register(Plugin(id: "c", priority: 0))
        #expect(registry.all.map(\.id) == ["a", "b", "c"])
        #expect(registry.plugin(withID: "c")?.priority == 0)
        #expect(registry.unregister("c"))
        #expect(!registry.unregister("c"))
        #expect(registry.plugin(withID: "c") == nil)
    }

    @Test func anIsolatedStoreIsEmptySeenByChildTasksAndGoneAfterwards() async {
        Self.plugins.global.register(Plugin(id: "process", priority: 0))
        defer { _ = Self.plugins.global.unregister("process") }
        await Self.plugins.withIsolated {
            #expect(Self.plugins.current.all.isEmpty)
            Self.plugins.current.register(Plugin(id: "test", priority: 0))
            let seen = await Task { Self.plugins.current.all.map(\.id) }.value
            #expect(seen == ["test"])
            // Another store's scope is untouched: isolating one registry leaves the others as they were.
            #expect(Self.others.current === Self.others.global)
        }
        #expect(Self.plugins.current.all.map(\.id) == ["process"])
    }

    @Test func parallelTasksEachSeeTheirOwnStore() async {
        await withTaskGroup(of: [String].self) { group in
            for index in 0..<8 {
                group.addTask {
                    await Self.plugins.withIsolated {
                        Self.plugins.current.register(Plugin(id: "task \(index)", priority: index))
                        await Task.yield()
                        return Self.plugins.current.all.map(\.id)
                    }
                }
            }
            for await ids in group { #expect(ids.count == 1) }
        }
    }
}

/// `DeviceCodeWindows.present` lives in the provider registry's store: an isolated registry starts
/// with the enclosing one's window, and replacing it there leaves the process's alone.
@Suite struct DeviceCodeWindowsIsolationTests {
    @Test @MainActor func anIsolatedRegistryStartsWithTheEnclosingWindowAndKeepsItsOwn() async {
        let outside = DeviceCodeWindows.present
        await WebviewProviderRegistry.withIsolatedRegistry {
            #expect((DeviceCodeWindows.present == nil) == (outside == nil))
            var shown = 0
            DeviceCodeWindows.present = { _, _, _ in
                shown += 1
                return {}
            }
            await WebviewProviderRegistry.withIsolatedRegistry {
                let content = DeviceCodeWindowContent(
                    userCode: "ABCD", link: URL(string: "https://example.com/device")!, instructions: "", expiresOn: .distantFuture,
                    qrCode: nil)
                _ = DeviceCodeWindows.present?(content, nil, {})
            }
            #expect(shown == 1, "the nested registry started with the window set here")
        }
        #expect((DeviceCodeWindows.present == nil) == (outside == nil), "the process's window is untouched")
    }
}

/// The settings of modules above the host kept in the registry's store (the embedded provider's
/// statics): the process's value outside, the scope's own inside.
@Suite struct ScopedSettingTests {
    static let inherited = ScopedSetting { "default" }
    static let fresh = ScopedSetting(inheritedByIsolatedScopes: false) { [String]() }

    @Test func anIsolatedScopeStartsWithTheEnclosingValueOrAFreshDefaultAndKeepsItsOwn() async {
        Self.inherited.value = "process"
        Self.fresh.value = ["process"]
        await WebviewProviderRegistry.withIsolatedRegistry {
            #expect(Self.inherited.value == "process", "starts as the enclosing scope's")
            #expect(Self.fresh.value == [], "starts as a new default")
            Self.inherited.value = "scope"
            Self.fresh.value = ["scope"]
            await WebviewProviderRegistry.withIsolatedRegistry {
                #expect(Self.inherited.value == "scope")
                #expect(Self.fresh.value == [])
            }
            #expect(await Task.detached { Self.inherited.value }.value == "process", "a task outside the scope sees the process's")
            #expect(Self.inherited.value == "scope")
        }
        #expect(Self.inherited.value == "process", "the process's value is untouched")
        #expect(Self.fresh.value == ["process"])
    }
}
