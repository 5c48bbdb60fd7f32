import Foundation
import Testing

@testable import WebviewHost

/// `ProxyAuthentication.ask` and `WebviewLocalization`'s settings live in the registry's store
/// (issue 41): an isolated registry starts with the enclosing scope's values, and what it sets
/// stays its own while another scope runs beside it.
@Suite struct ScopedSettingsIsolationTests {
    /// Lets `count` tasks go on once all of them arrived: each scope has set its own values
    /// before either reads them.
    actor Barrier {
        private var waiting: [CheckedContinuation<Void, Never>] = []
        private let count: Int
        init(count: Int) { self.count = count }

        func arrive() async {
            if waiting.count + 1 == count {
                waiting.forEach { $0.resume() }
                waiting = []
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }
    }

    /// What the proxy question of this scope answers, for a proxy no other test names.
    static func answer(in name: String) async -> ProxyCredential? {
        await ProxyAuthentication.answer(proxy: "\(name)-\(UUID().uuidString).invalid:3128", realm: nil, basic: false, retrying: false)
    }

    @Test("Two concurrent isolated registries each keep their own ProxyAuthentication.ask and languages; the enclosing scope's are untouched")
    func concurrentScopesDoNotLeak() async {
        // The test's own scope stands for the process's, which other suites may set meanwhile.
        await WebviewProviderRegistry.withIsolatedRegistry {
            ProxyAuthentication.ask = { _ in ProxyCredential(user: "outer", password: "-") }
            WebviewLocalization.languages = ["it"]
            WebviewLocalization.catalogDirectory = nil
            let barrier = Barrier(count: 2)
            await withTaskGroup(of: Void.self) { group in
                for (name, language) in [("first", "fr"), ("second", "de")] {
                    group.addTask {
                        await WebviewProviderRegistry.withIsolatedRegistry {
                            #expect(WebviewLocalization.languages == ["it"], "starts with the enclosing scope's")
                            #expect(await Self.answer(in: name)?.user == "outer", "starts with the enclosing scope's ask")
                            WebviewLocalization.languages = [language]
                            ProxyAuthentication.ask = { _ in ProxyCredential(user: name, password: "-") }
                            await barrier.arrive()
                            #expect(WebviewLocalization.languages == [language], "\(name): its own, not the other scope's")
                            #expect(ShownText.language() == language, "the library's text follows the scope's languages")
                            #expect(await Self.answer(in: name)?.user == name, "\(name): its own ask, not the other scope's")
                            #expect(ProxyAuthentication.questions.canAsk)
                        }
                    }
                }
            }
            #expect(WebviewLocalization.languages == ["it"], "the enclosing scope's languages are untouched")
            #expect(ShownText.language() == "it")
            #expect(await Self.answer(in: "outer")?.user == "outer", "the enclosing scope's ask is untouched")
        }
    }

    @Test("An isolated registry's catalog directory is its own: a folder without catalogs there leaves the shipped ones elsewhere")
    func catalogDirectoryIsScoped() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-catalogs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        await WebviewProviderRegistry.withIsolatedRegistry {
            WebviewLocalization.catalogDirectory = empty.path
            #expect(WebviewLocalization.catalogDirectories().first == empty.path)
            await WebviewProviderRegistry.withIsolatedRegistry {
                #expect(WebviewLocalization.catalogDirectory == empty.path, "inherited")
            }
        }
        await WebviewProviderRegistry.withIsolatedRegistry {
            #expect(WebviewLocalization.catalogDirectories().first != empty.path, "another scope never saw it")
            #expect(WebviewLocalization.catalog(for: "fr") != nil)
        }
    }
}
