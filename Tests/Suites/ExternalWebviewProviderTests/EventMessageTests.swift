@testable import ExternalWebviewProvider
import Foundation
import ScenarioSupport
import Testing
import WebviewHost

/// Every step a session delivers has a plugin message that reports it, which the host reads and
/// `ExternalProviders.md` documents.
@Suite("External providers: a message for every notification")
struct EventMessageTests {
    @Test("The host reads the message that reports each step", arguments: WebAuthEvent.Kind.allCases)
    func parsed(kind: WebAuthEvent.Kind) throws {
        let fields: [String: Any] = [
            "type": kind.pluginMessageType, "url": "https://login.example/page", "code": "network",
            "message": "The network is down.", "reason": "webAuthn",
        ]
        let line = try JSONSerialization.data(withJSONObject: fields)
        let message = try PluginMessage.parse(Array(line))
        #expect(message.type == kind.pluginMessageType)
    }

    @Test("ExternalProviders.md's plugin-to-host table has each step's message", arguments: WebAuthEvent.Kind.allCases)
    func documented(kind: WebAuthEvent.Kind) throws {
        let text = try String(
            contentsOf: Checkout.root.appendingPathComponent("Sources/WebviewHost/Docs.docc/ExternalProviders.md"), encoding: .utf8)
        let table = try #require(text.components(separatedBy: "**Plugin to host**").dropFirst().first)
        #expect(
            table.split(separator: "\n").contains { $0.hasPrefix("| `\(kind.pluginMessageType)` |") },
            "no row for \(kind.pluginMessageType) (which reports \(kind)) in ExternalProviders.md")
    }
}
