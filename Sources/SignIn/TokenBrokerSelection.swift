import Foundation
import Logging
import Synchronization
import WebviewHost

/// Which broker a ``PublicClientApplication`` uses, asked again on each call (a broker may start
/// or stop while the app runs), and the accounts it last listed.
final class TokenBrokerSelection: Sendable {
    private let store: PluginRegistry<String, any TokenBroker>
    private let lastAccounts = Mutex<[Account]?>(nil)
    static let logger = Logger(label: "SignIn.broker")

    init() {
        store = TokenBrokerRegistry.store.current
    }

    /// Whether any broker is registered (asking nobody).
    var hasBrokers: Bool { !store.all.isEmpty }

    /// The first registered broker available for `authority`; `nil` (logged) when none is.
    func broker(for authority: URL) async -> (any TokenBroker)? {
        let brokers = store.all
        if brokers.isEmpty {
            Self.logger.info("no token broker is registered; signing in through the web flow")
            return nil
        }
        for broker in brokers {
            let availability = await broker.availability(for: authority)
            if availability.isAvailable {
                Self.logger.debug("using token broker", metadata: ["broker": "\(broker.id)"])
                return broker
            }
            Self.logger.info(
                "token broker not used; signing in through the web flow",
                metadata: ["broker": "\(broker.id)", "why": "\(availability)"])
        }
        return nil
    }

    /// The accounts a broker listed last, or `nil` before any listing.
    var accounts: [Account]? {
        get { lastAccounts.withLock { $0 } }
        set { lastAccounts.withLock { $0 = newValue } }
    }

    func remember(_ account: Account) {
        lastAccounts.withLock { accounts in
            var list = accounts ?? []
            list.removeAll { $0.identifier == account.identifier }
            list.append(account)
            accounts = list
        }
    }

    func forget(_ account: Account) {
        lastAccounts.withLock { $0?.removeAll { $0.identifier == account.identifier } }
    }
}
