#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
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
        ViewLoadFailures.watch()
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

/// Every main-frame `load-failed` of every web view in this process, `<uri>: <error>`, seen by an
/// emission hook (before any handler: the session's own handler stops the emission for the loads
/// it takes care of). For a failure's message: a sign-in that waited after a load the session
/// absorbed (a request cancelled before anything showed, say) says which and why.
enum ViewLoadFailures {
    private static let seen = Mutex<[String]>([])
    nonisolated(unsafe) private static var watching = false

    static var all: [String] { seen.withLock { $0 } }

    private static let hook: GSignalEmissionHook = { _, count, values, _ in
        guard let values, count >= 4 else { return 1 }
        record(uri: g_value_get_string(values + 2), error: g_value_get_boxed(values + 3))
        return 1  // stay
    }

    private static func record(uri: UnsafePointer<gchar>?, error: gpointer?) {
        let uri = uri.map { String(cString: $0) } ?? "?"
        var message = "no error"
        if let error = error?.assumingMemoryBound(to: GError.self).pointee {
            message = "\(String(cString: g_quark_to_string(error.domain))) \(error.code): \(String(cString: error.message))"
        }
        let line = "\(uri): \(message)"
        seen.withLock { $0.append(line) }
    }

    @MainActor
    static func watch() {
        guard !watching else { return }
        watching = true
        g_type_class_unref(g_type_class_ref(webkit_web_view_get_type()))
        g_signal_add_emission_hook(g_signal_lookup("load-failed", webkit_web_view_get_type()), 0, hook, nil, nil)
    }
}
