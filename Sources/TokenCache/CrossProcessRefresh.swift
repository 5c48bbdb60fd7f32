package import Foundation
package import Logging

/// One token renewal at a time for an account, across every process using the same store:
/// the store's ``TokenCacheStorage/refreshLock(for:)`` (a `flock(2)` file beside the store, as
/// msal-extensions locks beside its cache), held from before the store is read again until the
/// renewed tokens are written. A process that waited finds the rotated tokens in the store and
/// uses them instead of spending the old refresh token (one-use at Microsoft Entra ID).
///
/// The wait is bounded (the lock's time limit, and at least one network time-out); a holder
/// that was killed released the lock with its descriptor. A waiter that gives up (a holder that is stopped, not dead) renews
/// without the lock, logged: a late second renewal is better than a hang.
package struct CrossProcessRefresh: Sendable {
    private let held: TokenCacheLockFile.Held?

    /// Takes the account's refresh lock; without one (a store only this process uses, or tokens
    /// kept in memory for this run) this process's own single flight is enough. The wait is at least `networkTimeout` and 5 seconds: the holder may be waiting for the
    /// token endpoint that long.
    package static func begin(cache: TokenCache, account: Account, networkTimeout: TimeInterval, logger: Logger) async -> CrossProcessRefresh {
        guard cache.detachedBecause == nil, let lock = cache.storage.refreshLock(for: "refresh \(account.identifier)") else {
            return CrossProcessRefresh(held: nil)
        }
        let patient = lock.waiting(atLeast: networkTimeout + 5)
        do throws(TokenCacheStorageError) {
            return CrossProcessRefresh(held: try await patient.acquire())
        } catch {
            logger.warning(
                "Renewing without the cross-process refresh lock", metadata: ["code": "\(error.code)", "reason": "\(error.message)"])
            return CrossProcessRefresh(held: nil)
        }
    }

    /// Releases the lock (once; the tokens are stored by now).
    package func end() { held?.release() }

    /// Whether another process renewed the account's tokens between the two reads of the store.
    package static func renewedElsewhere(before: TokenCache.CachedAccount, after: TokenCache.CachedAccount, scopes: [String]) -> Bool {
        before.refreshToken != after.refreshToken
            || before.entry(covering: scopes)?.accessToken != after.entry(covering: scopes)?.accessToken
    }
}
