import Foundation
import Synchronization

/// What a ``TokenCache`` holds in this process's memory: the cache as last read from or written
/// to the store, and the changes the store could not take yet.
///
/// A finished sign-in is never lost to a failing store: its change is kept here, reads see it,
/// and the next write that reaches the store applies it first. Nothing here is ever written
/// anywhere but the store the app chose.
final class TokenCacheMemory: Sendable {
    typealias Change = @Sendable (inout MSALTokenCacheDocument) -> Void

    private struct State {
        var base = MSALTokenCacheDocument()
        var unsaved: [(id: Int, change: Change)] = []
        var nextID = 0
        /// Why the store is not used for the rest of this run (the app chose memory), if it is not.
        var detachedBecause: TokenCacheStorageError?
        /// The last failure of the store that left changes unsaved.
        var lastFailure: TokenCacheStorageError?
    }

    private let state = Mutex(State())

    /// The store is not called again until ``attach()``: the app chose to keep tokens in memory
    /// for this run, because the store could not be opened.
    var detachedBecause: TokenCacheStorageError? { state.withLock { $0.detachedBecause } }

    /// Why some tokens are only in memory now; `nil` when the store holds everything.
    var unsavedBecause: TokenCacheStorageError? {
        state.withLock { $0.unsaved.isEmpty ? nil : ($0.detachedBecause ?? $0.lastFailure) }
    }

    var hasUnsavedChanges: Bool { state.withLock { !$0.unsaved.isEmpty } }

    func detach(because error: TokenCacheStorageError) { state.withLock { $0.detachedBecause = error } }

    func attach() { state.withLock { $0.detachedBecause = nil } }

    /// The store was read: `document` is what it holds now.
    func remember(stored document: MSALTokenCacheDocument) { state.withLock { $0.base = document } }

    /// The cache this process sees: what the store last held, with the unsaved changes applied.
    func document(over stored: MSALTokenCacheDocument? = nil) -> MSALTokenCacheDocument {
        state.withLock { state in
            var document = stored ?? state.base
            for (_, change) in state.unsaved { change(&document) }
            return document
        }
    }

    /// The unsaved changes, to apply before a write; pass their IDs to ``saved(_:document:)``.
    func pending() -> [(id: Int, change: Change)] { state.withLock { $0.unsaved } }

    /// A write reached the store: the changes with `ids` are in it, and it holds `document`.
    func saved(_ ids: [Int], document: MSALTokenCacheDocument) {
        state.withLock { state in
            let done = Set(ids)
            state.unsaved.removeAll { done.contains($0.id) }
            state.base = document
            if state.unsaved.isEmpty { state.lastFailure = nil }
        }
    }

    /// The store did not take `change`: keep it for the next write.
    func keep(_ change: @escaping Change, because error: TokenCacheStorageError) {
        state.withLock { state in
            state.unsaved.append((state.nextID, change))
            state.nextID += 1
            state.lastFailure = error
        }
    }
}
