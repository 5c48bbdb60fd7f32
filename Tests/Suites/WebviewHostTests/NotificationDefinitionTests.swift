import Foundation
import ScenarioSupport
import Testing
@testable import WebviewHost

/// A notification is defined once, in ``WebAuthEvent``: its name, its userInfo and the
/// documentation's list all follow ``WebAuthEvent/Kind``.
@Suite("Notifications: each defined once, named as MSAL names them, listed in the docs")
struct NotificationDefinitionTests {
    /// One event of each step. The switch stops compiling when a step is added.
    static func sample(_ kind: WebAuthEvent.Kind) -> WebAuthEvent {
        let page = URL(string: "https://login.example/authorize?client_id=app")!
        switch kind {
        case .didStartLoad: return .didStartLoad(page)
        case .didFinishLoad: return .didFinishLoad(page)
        case .willSwitchToBrokerApp: return .willSwitchToBrokerApp(URL(string: "msauth://broker/request")!)
        case .willSwitchToSystemBrowser:
            return .willSwitchToSystemBrowser(SystemBrowserHandOver(reason: .webAuthn, detail: "a passkey", pageURL: page))
        case .didComplete: return .didComplete(URL(string: "http://127.0.0.1:8080/callback?code=c&state=s")!)
        case .didFail: return .didFail(WebAuthError(.userCanceled, "The person closed the window.", url: page))
        }
    }

    @Test("Each step's event is of that step", arguments: WebAuthEvent.Kind.allCases)
    func kinds(kind: WebAuthEvent.Kind) {
        #expect(Self.sample(kind).kind == kind)
        #expect(Self.sample(kind).description.hasPrefix("\(kind)("))
    }

    @Test("The notification names and userInfo keys apps use are unchanged")
    func publicNames() {
        let names: [Notification.Name: String] = [
            .webAuthDidStartLoad: "WebAuthDidStartLoadNotification",
            .webAuthDidFinishLoad: "WebAuthDidFinishLoadNotification",
            .webAuthDidFail: "WebAuthDidFailNotification",
            .webAuthDidComplete: "WebAuthDidCompleteNotification",
            .webAuthWillSwitchToBrokerApp: "WebAuthWillSwitchToBrokerAppNotification",
            .webAuthWillSwitchToSystemBrowser: "WebAuthWillSwitchToSystemBrowserNotification",
        ]
        for (name, raw) in names { #expect(name.rawValue == raw) }
        #expect(Set(WebAuthEvent.Kind.allCases.map(\.notificationName)) == Set(names.keys))
        #expect(
            [WebAuthNotificationKey.url, WebAuthNotificationKey.error, WebAuthNotificationKey.webview, WebAuthNotificationKey.handOver]
                == ["url", "error", "webview", "handOver"])
    }

    @Test("A notification's userInfo reads back into the event it was posted for", arguments: WebAuthEvent.Kind.allCases)
    func roundTrip(kind: WebAuthEvent.Kind) throws {
        let event = Self.sample(kind)
        let note = Notification(name: event.notificationName, object: nil, userInfo: event.userInfo)
        #expect(WebAuthEvent.Kind(notificationName: note.name) == kind)
        let read = try #require(WebAuthEvent(note))
        #expect(read.kind == kind)
        #expect(read.description == event.description)
        #expect(note.userInfo?[WebAuthNotificationKey.url] as? URL != nil, "every sample names a page or the callback")
        #expect(WebAuthEvent(Notification(name: .init("SomethingElse"))) == nil)
    }

    @Test("ObservingSessions.md lists every notification, with its Swift name", arguments: WebAuthEvent.Kind.allCases)
    func documented(kind: WebAuthEvent.Kind) throws {
        let docs = Checkout.root
            .appendingPathComponent("Sources/WebviewHost/Docs.docc/ObservingSessions.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let row = text.split(separator: "\n").first { $0.hasPrefix("| `\(kind)` ") }
        let raw = kind.notificationName.rawValue
        let swiftName = raw.prefix(1).lowercased() + raw.dropFirst().dropLast("Notification".count)
        #expect(row != nil, "no row for \(kind) in the notifications table of ObservingSessions.md")
        #expect(row?.contains("`\(swiftName)`") == true, "the row for \(kind) does not name \(swiftName)")
    }
}
