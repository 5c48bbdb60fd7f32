import Foundation
import Synchronization
import WebviewHost

/// What an ``ObservedProvider`` saw: the reporter of its last session and how many times its
/// sessions were dismissed. Safe from any thread.
final class ProviderObserver: Sendable {
    private let state = Mutex<(reporter: WebAuthSessionReporter?, dismissCount: Int)>((nil, 0))

    func made(_ reporter: WebAuthSessionReporter) { state.withLock { $0.reporter = reporter } }
    func dismissed() { state.withLock { $0.dismissCount += 1 } }

    /// The reporter the provider's last session was given.
    var reporter: WebAuthSessionReporter? { state.withLock { $0.reporter } }
    var dismissCount: Int { state.withLock { $0.dismissCount } }
}
