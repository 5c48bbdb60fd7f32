import Foundation
import ScenarioSupport
import Synchronization

@testable import SignIn

/// A token store the tests can break and mend: memory underneath, every call recorded (in order,
/// with ``ScriptedBrowserProvider``'s page events when given its log), and each kind of call
/// failing with `locked` while its switch is on.
final class ControlledTokenCacheStorage: TokenCacheStorage {
    private let content = InMemoryTokenCacheStorage()
    private let switches = Mutex((prepare: false, load: false, save: false))
    let log: ScriptedBrowserProvider.Log

    init(log: ScriptedBrowserProvider.Log = .init()) {
        self.log = log
    }

    /// Makes `prepare`, `load` and `save` fail (or work again).
    func fail(prepare: Bool, load: Bool, save: Bool) {
        switches.withLock { $0 = (prepare, load, save) }
    }

    /// What was saved last, as the store holds it.
    var saved: Data? { try? content.load() }

    private func check(_ call: String, _ failing: Bool) throws(TokenCacheStorageError) {
        log.append("store \(call)\(failing ? " failed" : "")")
        if failing { throw TokenCacheStorageError(.locked, "The test keyring is locked; unlock it and try again.") }
    }

    func prepare() throws(TokenCacheStorageError) {
        try check("prepare", switches.withLock { $0.prepare })
    }

    func load() throws(TokenCacheStorageError) -> Data? {
        try check("load", switches.withLock { $0.load })
        return try content.load()
    }

    func save(_ data: Data) throws(TokenCacheStorageError) {
        try check("save", switches.withLock { $0.save })
        try content.save(data)
    }

    func withWriterLock<T>(_ body: () throws(TokenCacheStorageError) -> T) throws(TokenCacheStorageError) -> T {
        try content.withWriterLock(body)
    }
}
