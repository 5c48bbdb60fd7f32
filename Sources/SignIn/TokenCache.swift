import Foundation
import Synchronization

/// The tokens of the accounts signed in through one ``PublicClientApplication``, in memory,
/// keyed by account and scopes.
final class TokenCache: Sendable {
    /// The tokens of one account for one set of scopes.
    struct Entry: Sendable {
        var account: Account
        var scopes: [String]
        var accessToken: String
        var expiresOn: Date
        var idToken: String
        var idTokenClaims: IDTokenClaims
        var refreshToken: String?

        var result: AuthenticationResult {
            AuthenticationResult(
                accessToken: accessToken, expiresOn: expiresOn, scopes: scopes, idToken: idToken,
                idTokenClaims: idTokenClaims, refreshToken: refreshToken, account: account)
        }

        func covers(_ requested: [String]) -> Bool {
            Set(requested).isSubset(of: Set(scopes))
        }
    }

    private let entries = Mutex<[String: [Entry]]>([:])

    /// Stores `entry`, replacing the account's entry with the same scopes.
    func store(_ entry: Entry) {
        entries.withLock { all in
            var list = all[entry.account.identifier, default: []]
            list.removeAll { Set($0.scopes) == Set(entry.scopes) }
            list.append(entry)
            all[entry.account.identifier] = list
        }
    }

    /// The account's entry whose scopes hold all of `scopes`, the latest first.
    func entry(for account: Account, covering scopes: [String]) -> Entry? {
        entries.withLock { $0[account.identifier]?.last(where: { $0.covers(scopes) }) }
    }

    /// Whether anything is cached for the account.
    func contains(_ account: Account) -> Bool {
        entries.withLock { !($0[account.identifier] ?? []).isEmpty }
    }

    /// Forgets the refresh tokens of the account (one was refused).
    func removeRefreshTokens(of account: Account) {
        entries.withLock { all in
            all[account.identifier] = all[account.identifier]?.map {
                var entry = $0
                entry.refreshToken = nil
                return entry
            }
        }
    }

    /// Replaces the refresh tokens of the account (tests simulate a garbled one with it).
    func replaceRefreshTokens(of account: Account, with token: String) {
        entries.withLock { all in
            all[account.identifier] = all[account.identifier]?.map {
                var entry = $0
                entry.refreshToken = token
                return entry
            }
        }
    }

    /// Every account with cached tokens.
    var accounts: [Account] {
        entries.withLock { $0.values.compactMap(\.last?.account) }.sorted { $0.identifier < $1.identifier }
    }

    /// Forgets the account's tokens; returns whether any were cached.
    @discardableResult
    func remove(_ account: Account) -> Bool {
        entries.withLock { $0.removeValue(forKey: account.identifier) != nil }
    }
}
