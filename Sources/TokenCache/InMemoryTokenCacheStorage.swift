public import Foundation
import Synchronization

/// Keeps the cache in this process only: every launch starts signed out. Choose it explicitly
/// for apps that must not remember anyone, and in tests.
public final class InMemoryTokenCacheStorage: TokenCacheStorage {
    private let content = Mutex<Data?>(nil)
    /// Excludes writers in this process; there are no other processes to exclude.
    private let writer = NSLock()

    /// An empty store. Share one instance between applications to share their cache in this process.
    public init() {}

    public func load() throws(TokenCacheStorageError) -> Data? {
        content.withLock { $0 }
    }

    public func save(_ data: Data) throws(TokenCacheStorageError) {
        content.withLock { $0 = data }
    }

    public func withWriterLock<T>(_ body: () throws(TokenCacheStorageError) -> T) throws(TokenCacheStorageError) -> T {
        writer.lock()
        defer { writer.unlock() }
        return try body()
    }
}
