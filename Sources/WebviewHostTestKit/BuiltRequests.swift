import Foundation
import Synchronization

/// The redirect URIs an ``WebviewHost/AuthorizationRequestBuilder`` of the hand-over checks was
/// asked for, in order. Safe from any thread.
final class BuiltRequests: Sendable {
    private let asked = Mutex<[URL]>([])

    /// Records `redirect`; returns how many were asked so far.
    func append(_ redirect: URL) -> Int { asked.withLock { $0.append(redirect); return $0.count } }
    var all: [URL] { asked.withLock { $0 } }
}
