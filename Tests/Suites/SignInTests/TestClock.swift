import Foundation
import Synchronization

/// A clock tests move forward, for access token expiry.
final class TestClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)
    func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }
}
