public import Foundation
public import WebviewHost
import Synchronization

/// Records the `webAuth*` notifications as they are posted: which one, its userInfo, and
/// whether it arrived on the main thread. Safe from any thread.
///
/// It observes every ``WebAuthEvent/Kind``: a notification added to the host is recorded
/// without a change here.
public final class WebAuthEventRecorder: Sendable {
    public struct Record: Sendable, CustomStringConvertible {
        /// Which step was posted.
        public let kind: WebAuthEvent.Kind
        /// The step read back from the notification (``WebAuthEvent/init(_:)``); `nil` when its
        /// userInfo lacked what the step carries.
        public let event: WebAuthEvent?
        public let url: URL?
        public let error: WebAuthError?
        public let hasWebview: Bool
        /// Posted on the main thread (or, in a test runner, in a main-queue job: `MainContext`).
        public let onMainThread: Bool

        public var name: Notification.Name { kind.notificationName }

        /// The step's name: `didStartLoad`, `didFinishLoad`, `didComplete`, `didFail`...
        public var shortName: String { kind.rawValue }

        public var description: String { shortName + (url.map { "(\($0.absoluteString))" } ?? "") }
    }

    /// The notifications recorded: one per ``WebAuthEvent/Kind``.
    public static let names: [Notification.Name] = WebAuthEvent.Kind.allCases.map(\.notificationName)

    private let state = Mutex<(records: [Record], observers: ObserverTokens)>(([], ObserverTokens()))

    /// NotificationCenter's observer tokens; used only to remove the observers.
    private struct ObserverTokens: @unchecked Sendable {
        var tokens: [any NSObjectProtocol] = []
    }

    /// Starts recording notifications posted by `session` (every session when `nil`).
    public init(session: WebAuthSession? = nil) {
        let observers = WebAuthEvent.Kind.allCases.map { kind in
            NotificationCenter.default.addObserver(forName: kind.notificationName, object: session, queue: nil) { [weak self] note in
                let record = Record(
                    kind: kind,
                    event: WebAuthEvent(note),
                    url: note.userInfo?[WebAuthNotificationKey.url] as? URL,
                    error: note.userInfo?[WebAuthNotificationKey.error] as? WebAuthError,
                    hasWebview: note.userInfo?[WebAuthNotificationKey.webview] != nil,
                    onMainThread: MainContext.isCurrent)
                self?.state.withLock { $0.records.append(record) }
            }
        }
        state.withLock { $0.observers = ObserverTokens(tokens: observers) }
    }

    deinit { stop() }

    /// Stops recording.
    public func stop() {
        let observers = state.withLock { state -> ObserverTokens in
            defer { state.observers = ObserverTokens() }
            return state.observers
        }
        for observer in observers.tokens { NotificationCenter.default.removeObserver(observer) }
    }

    /// Everything recorded so far, in posting order.
    public var records: [Record] { state.withLock { $0.records } }
    /// The short names of the records, in order.
    public var shortNames: [String] { records.map(\.shortName) }
    /// How many terminal notifications (`didComplete`, `didFail`) were posted.
    public var terminalCount: Int {
        records.filter(\.kind.isTerminal).count
    }
}
