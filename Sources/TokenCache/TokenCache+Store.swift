import Foundation
import Synchronization
package import WebviewHost

/// The calls to the ``TokenCacheStorage``, on the cache's serial queue, and what this process
/// keeps in memory when the store cannot take it.
extension TokenCache {
    /// Opens the store before a person is asked to sign in (``TokenCacheStorage/prepare()``: a
    /// keyring is unlocked here) and reads it; the store's error when it cannot be used. Does
    /// nothing while the app keeps tokens in memory for this run.
    package func open() async -> TokenCacheStorageError? {
        if memory.detachedBecause != nil { return nil }
        _ = await currentScope()
        let storage = storage
        do throws(WebAuthError) {
            let stored = try await onQueue { () throws(TokenCacheStorageError) in
                try storage.prepare()
                return MSALTokenCacheDocument(data: try storage.load())
            }
            memory.remember(stored: stored)
            remember(memory.document(over: stored))
            return nil
        } catch {
            return Self.storageError(of: error)
        }
    }

    /// Whether the store is not called for the rest of this run, and why.
    package var detachedBecause: TokenCacheStorageError? { memory.detachedBecause }

    /// Keeps tokens in this process's memory only, without calling the store, until ``attach()``.
    package func detach(because error: TokenCacheStorageError) { memory.detach(because: error) }

    /// Why some tokens are only in memory now; `nil` when the store holds everything.
    package var unsavedBecause: TokenCacheStorageError? { memory.unsavedBecause }

    /// Uses the store again and writes what only memory holds into it.
    package func attach() async throws(WebAuthError) {
        let detached = memory.detachedBecause
        memory.attach()
        do throws(WebAuthError) {
            try await update { _ in }
        } catch {
            if let detached { memory.detach(because: detached) }
            throw error
        }
    }

    /// After a fresh interactive sign-in, while the store is not used because it refused its
    /// content for a reason a new copy removes (``TokenCacheStorageError/canBeReplaced``): replaces
    /// it with what this process holds (the refused content was never read), and uses the store
    /// again. The store's notice, or `nil` when there was nothing to replace or it could not be.
    package func replaceRefusedStore() async -> TokenCacheStorageError? {
        guard let refused = memory.detachedBecause, refused.canBeReplaced else { return nil }
        let storage = storage
        let pending = memory.pending()
        let document = memory.document(over: MSALTokenCacheDocument())
        let data = document.serialized()
        let notice: TokenCacheStorageError
        do throws(WebAuthError) {
            notice = try await onQueue { () throws(TokenCacheStorageError) in
                try storage.withWriterLock { () throws(TokenCacheStorageError) in try storage.replaceRefused(refused, with: data) }
            }
        } catch {
            return nil  // still refused: the tokens stay in memory, as the app decided
        }
        memory.attach()
        memory.saved(pending.map(\.id), document: document)
        remember(document)
        return notice
    }

    func load() async throws(WebAuthError) -> MSALTokenCacheDocument {
        _ = await currentScope()
        if memory.detachedBecause != nil {
            let document = memory.document()
            remember(document)
            return document
        }
        let storage = storage
        do throws(WebAuthError) {
            let stored = try await onQueue { () throws(TokenCacheStorageError) in MSALTokenCacheDocument(data: try storage.load()) }
            memory.remember(stored: stored)
            let document = memory.document(over: stored)
            remember(document)
            return document
        } catch {
            // Tokens this process got and could not store are still usable here.
            guard memory.hasUnsavedChanges else { throw error }
            let document = memory.document()
            remember(document)
            return document
        }
    }

    /// Lock, load, change, save, unlock: the change applies to what the store holds now, after
    /// the changes an earlier write could not store. With `keepingOnFailure`, a store that fails
    /// does not lose the change: it is kept in memory for the next write, and the store's error
    /// is returned instead of thrown.
    @discardableResult
    func update(
        keepingOnFailure: Bool = false, _ change: @escaping @Sendable (inout MSALTokenCacheDocument) -> Void
    ) async throws(WebAuthError) -> TokenCacheStorageError? {
        if let detached = memory.detachedBecause {
            guard keepingOnFailure else {
                throw WebAuthError(
                    .providerUnavailable, "The token cache is kept in memory for this run. \(detached.message)", underlyingError: detached)
            }
            memory.keep(change, because: detached)
            remember(memory.document())
            return detached
        }
        let storage = storage
        let pending = memory.pending()
        do throws(WebAuthError) {
            let document = try await onQueue { () throws(TokenCacheStorageError) in
                try storage.withWriterLock { () throws(TokenCacheStorageError) in
                    var document = MSALTokenCacheDocument(data: try storage.load())
                    for (_, earlier) in pending { earlier(&document) }
                    change(&document)
                    try storage.save(document.serialized())
                    return document
                }
            }
            memory.saved(pending.map(\.id), document: document)
            remember(memory.document(over: document))
            return nil
        } catch {
            guard keepingOnFailure, let storageError = Self.storageError(of: error) else { throw error }
            memory.keep(change, because: storageError)
            remember(memory.document())
            return storageError
        }
    }

    private func remember(_ document: MSALTokenCacheDocument) {
        let accounts = accounts(in: document)
        lastSeenAccounts.withLock { $0 = accounts }
    }

    private static func storageError(of error: WebAuthError) -> TokenCacheStorageError? {
        error.underlyingError as? TokenCacheStorageError
    }

    private func onQueue<T: Sendable>(_ work: @escaping @Sendable () throws(TokenCacheStorageError) -> T) async throws(WebAuthError) -> T {
        let queue = queue
        let result: Result<T, TokenCacheStorageError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(TokenCacheStorageError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            throw WebAuthError(.providerUnavailable, "The token cache could not be used. \(error.message)", underlyingError: error)
        }
    }
}
