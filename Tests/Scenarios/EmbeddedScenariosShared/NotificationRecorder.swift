import Foundation
import ScenarioSupport
import Synchronization
import WebviewHost

/// Records the `webAuth*` notifications one session posts (every ``WebAuthEvent/Kind``), with the
/// thread each arrived on.
@MainActor
final class NotificationRecorder {
    struct Entry: Sendable {
        var name: String
        var url: URL?
        var errorCode: String?
        var webview: WebviewHandle?
        var onMainThread: Bool
        var handOver: SystemBrowserHandOver? = nil
        var text: String { "\(name) \(url?.absoluteString ?? errorCode ?? "")" }
    }

    /// Written from the posting thread, whichever it is.
    private final class Log: Sendable {
        let entries = Mutex<[Entry]>([])
    }

    private let log = Log()
    private var tokens: [any NSObjectProtocol] = []

    init(_ session: WebAuthSession) {
        for kind in WebAuthEvent.Kind.allCases {
            let token = NotificationCenter.default.addObserver(forName: kind.notificationName, object: session, queue: nil) {
                [log] notification in
                let info = notification.userInfo ?? [:]
                let entry = Entry(
                    name: kind.rawValue, url: info[WebAuthNotificationKey.url] as? URL,
                    errorCode: (info[WebAuthNotificationKey.error] as? WebAuthError)?.code.name,
                    webview: info[WebAuthNotificationKey.webview] as? WebviewHandle,
                    onMainThread: Thread.isMainThread,
                    handOver: info[WebAuthNotificationKey.handOver] as? SystemBrowserHandOver)
                log.entries.withLock { $0.append(entry) }
            }
            tokens.append(token)
        }
    }

    isolated deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }

    var all: [Entry] { log.entries.withLock { $0 } }
    /// `"didStartLoad http://..."`, in order.
    var texts: [String] { all.map(\.text) }
    var names: [String] { all.map(\.name) }
    var allOnMainThread: Bool { all.allSatisfy(\.onMainThread) }
    var terminalCount: Int { all.filter { WebAuthEvent.Kind(rawValue: $0.name)?.isTerminal == true }.count }
    var failCount: Int { all.filter { $0.name == "didFail" }.count }
    var webview: WebviewHandle? { all.lazy.compactMap(\.webview).first }
    /// The hand-overs to the browser the session announced.
    var handOvers: [SystemBrowserHandOver] { all.compactMap(\.handOver) }

    /// Waits (running the main loop) until an entry satisfies `predicate`; false after `timeout`.
    @MainActor
    func wait(for timeout: Duration = Patience.event, until predicate: (Entry) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if all.contains(where: predicate) { return true }
            await ScenarioHost.idle(.milliseconds(25))
        }
        return false
    }

    /// Waits for `didFinishLoad` of a URL whose path is `path`.
    @MainActor
    func waitForFinish(path: String, timeout: Duration = Patience.event) async -> Bool {
        await wait(for: timeout) { $0.name == "didFinishLoad" && $0.url?.path == path }
    }
}
