public import Foundation

/// One step of a session, as ``WebAuthSession/observe(_:)``, ``WebAuthSession/observeAll(_:)`` and
/// ``WebAuthSession/events`` deliver it. The same steps are posted as `webAuth*` notifications on
/// the main thread, with the session as the notification's object.
///
/// This enum is where a notification is defined: its case, its ``Kind`` (the name), its
/// notification (``Kind/notificationName``) and its userInfo are all derived here, through
/// exhaustive switches, and the test kit's recorder, the external-provider protocol and the
/// documentation tests follow ``Kind/allCases``. Adding a step is one case here and one in ``Kind``;
/// the compiler then names every switch that must handle it.
///
/// Apps: new steps are added as the library learns them (each is listed under "Breaking" in the
/// CHANGELOG). A `switch` naming every case stops compiling when one is added, so the app decides
/// what to show for it; end a `switch` with `default:` to keep compiling instead (the article
/// "Observing sessions" shows both).
public enum WebAuthEvent: Sendable, CustomStringConvertible {
    case didStartLoad(URL)
    case didFinishLoad(URL)
    case willSwitchToBrokerApp(URL)
    /// The sign-in moves from the embedded view to the person's browser (see ``SystemBrowserHandOver``).
    case willSwitchToSystemBrowser(SystemBrowserHandOver)
    /// Terminal: the callback URL.
    case didComplete(URL)
    /// Terminal: the one error.
    case didFail(WebAuthError)

    /// Which step an event is, without what it carries: one case per case of ``WebAuthEvent``,
    /// named the same. The raw value is that name (`"didStartLoad"`).
    public enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case didStartLoad
        case didFinishLoad
        case willSwitchToBrokerApp
        case willSwitchToSystemBrowser
        case didComplete
        case didFail

        /// The notification this step is posted as: `WebAuth<Name>Notification`, MSAL's names
        /// (`WebAuthDidStartLoadNotification`).
        public var notificationName: Notification.Name {
            Notification.Name("WebAuth" + rawValue.prefix(1).uppercased() + rawValue.dropFirst() + "Notification")
        }

        /// The step whose notification is `name`, or `nil` for any other notification.
        public init?(notificationName name: Notification.Name) {
            guard let kind = Self.allCases.first(where: { $0.notificationName == name }) else { return nil }
            self = kind
        }

        /// Whether this step ends the session (`didComplete`, `didFail`).
        public var isTerminal: Bool {
            switch self {
            case .didComplete, .didFail: true
            case .didStartLoad, .didFinishLoad, .willSwitchToBrokerApp, .willSwitchToSystemBrowser: false
            }
        }

        public var description: String { rawValue }
    }

    /// Which step this is.
    public var kind: Kind {
        switch self {
        case .didStartLoad: .didStartLoad
        case .didFinishLoad: .didFinishLoad
        case .willSwitchToBrokerApp: .willSwitchToBrokerApp
        case .willSwitchToSystemBrowser: .willSwitchToSystemBrowser
        case .didComplete: .didComplete
        case .didFail: .didFail
        }
    }

    /// The notification this event is posted as.
    public var notificationName: Notification.Name { kind.notificationName }

    public var isTerminal: Bool { kind.isTerminal }

    /// The notification's userInfo, without the `webview` (the session adds it where there is one):
    /// keys of ``WebAuthNotificationKey``.
    var userInfo: [String: Any] {
        var info: [String: Any] = [:]
        switch self {
        case .didStartLoad(let url), .didFinishLoad(let url), .willSwitchToBrokerApp(let url), .didComplete(let url):
            info[WebAuthNotificationKey.url] = url
        case .willSwitchToSystemBrowser(let handOver):
            info[WebAuthNotificationKey.handOver] = handOver
            if let page = handOver.pageURL { info[WebAuthNotificationKey.url] = page }
        case .didFail(let error):
            info[WebAuthNotificationKey.error] = error
            if let url = error.url { info[WebAuthNotificationKey.url] = url }
        }
        return info
    }

    /// The event a `webAuth*` notification carries, read back from its name and userInfo; `nil`
    /// for another notification or a userInfo without what the step carries.
    public init?(_ notification: Notification) {
        guard let kind = Kind(notificationName: notification.name) else { return nil }
        let info = notification.userInfo ?? [:]
        let url = info[WebAuthNotificationKey.url] as? URL
        switch kind {
        case .didStartLoad: guard let url else { return nil }; self = .didStartLoad(url)
        case .didFinishLoad: guard let url else { return nil }; self = .didFinishLoad(url)
        case .willSwitchToBrokerApp: guard let url else { return nil }; self = .willSwitchToBrokerApp(url)
        case .didComplete: guard let url else { return nil }; self = .didComplete(url)
        case .willSwitchToSystemBrowser:
            guard let handOver = info[WebAuthNotificationKey.handOver] as? SystemBrowserHandOver else { return nil }
            self = .willSwitchToSystemBrowser(handOver)
        case .didFail:
            guard let error = info[WebAuthNotificationKey.error] as? WebAuthError else { return nil }
            self = .didFail(error)
        }
    }

    public var description: String {
        switch self {
        case .didStartLoad(let url), .didFinishLoad(let url), .willSwitchToBrokerApp(let url), .didComplete(let url):
            "\(kind)(\(url.absoluteString))"
        case .willSwitchToSystemBrowser(let handOver): "\(kind)(\(handOver.reason))"
        case .didFail(let error): "\(kind)(\(error.code))"
        }
    }
}
