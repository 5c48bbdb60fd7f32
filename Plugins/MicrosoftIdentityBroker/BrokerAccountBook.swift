import Foundation
import SignIn
import Synchronization

/// The broker's own account objects, by the ``SignIn/Account/identifier`` they were turned into:
/// silent calls and sign-out send the broker its account back exactly as it gave it.
final class BrokerAccountBook: Sendable {
    /// The objects as JSON (bytes are Sendable; a parsed object is not).
    private let entries = Mutex<[String: Data]>([:])

    /// The ``SignIn/Account`` for a broker account object, remembered; `nil` without `homeAccountId`.
    func account(for object: BrokerJSON.Object) -> Account? {
        guard let home = object["homeAccountId"] as? String, !home.isEmpty else { return nil }
        let environment = (object["environment"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "login.microsoftonline.com"
        let realm = (object["realm"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "common"
        let name = (object["name"] as? String)
            ?? [object["givenName"] as? String, object["familyName"] as? String].compactMap { $0 }.joined(separator: " ").nilIfEmpty
        let account = Account(
            subject: home, issuer: "https://\(environment)/\(realm)/v2.0", username: object["username"] as? String, name: name)
        let data = BrokerJSON.data(object)
        entries.withLock { $0[account.identifier] = data }
        return account
    }

    /// The broker's object for `account`, if this process has seen it: by its identifier, else by
    /// its `homeAccountId` (an account read from an ID token has the broker's home account ID
    /// as its subject, but its issuer names the token's host, not always the broker's
    /// `environment`).
    func object(for account: Account) -> BrokerJSON.Object? {
        entries.withLock { entries in
            entries[account.identifier]
                ?? entries.values.first { (BrokerJSON.object(from: $0)?["homeAccountId"] as? String) == account.subject }
        }.flatMap(BrokerJSON.object(from:))
    }

    func forget(_ account: Account) {
        _ = entries.withLock { $0.removeValue(forKey: account.identifier) }
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
