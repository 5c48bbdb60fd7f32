import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// Issue 26: the library's sign-in window as a screen reader (over AT-SPI, what Orca reads) and
/// a keyboard meet it. It is announced as a modal dialog named by its title, with the page's host
/// as its description; its Cancel button has a name; once the page loaded the keyboard focus is
/// in the page, and on GTK 3 (whose WebKitGTK exposes the page over AT-SPI) a screen reader is on
/// the form's field that has `autofocus`; Escape ends the sign-in as Cancel does.
@Suite("The sign-in window for a screen reader and a keyboard", .serialized, .desktop)
struct AccessibilityTests {
    struct Node {
        let role: String
        let name: String
        let description: String
        let states: [String]
        let children: [Node]

        init(_ json: [String: Any]) {
            role = json["role"] as? String ?? ""
            name = json["name"] as? String ?? ""
            description = json["description"] as? String ?? ""
            states = json["states"] as? [String] ?? []
            children = (json["children"] as? [[String: Any]] ?? []).map(Node.init)
        }

        var all: [Node] { [self] + children.flatMap(\.all) }
    }

    @Test(arguments: Platform.x11)
    func theWindowIsAModalDialogWithNamedButtonsAndTheFocusInThePage(_ platform: Platform) async throws {
        // With the accessibility bus (which ScenarioRunner turns off by default), on a private
        // session bus that takes it down with the scenario, and on a private X display: the bus's
        // address is also published on the display's root window, where GTK 3 looks first.
        let folder = EmbeddedWebviewProviderTests.temporaryFolder()
        // The bus's socket is in XDG_RUNTIME_DIR; WebKitGTK 6.0's sandbox binds its folder.
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("runtime"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = try await ScenarioRunner.run(
            EmbeddedScenario.accessibility, in: platform.toolkit.program,
            environment: [
                "XDG_DATA_HOME": folder.appendingPathComponent("data").path,
                "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path,
                "XDG_RUNTIME_DIR": folder.appendingPathComponent("runtime").path,
                "NO_AT_BRIDGE": "0", "GTK_A11Y": "atspi",
            ],
            launcher: ["dbus-run-session", "--"], display: .privateX11)
        #expect(report[.outcome] == "userCanceled", "Escape ends the sign-in")
        #expect(report[.focusInView] == true, "the keyboard focus is in the page once it loaded")
        let text = try #require(report[.atspiTree])
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text) \(report[.atspiError] ?? "")")
        #expect(tree["error"] == nil, "\(text) \(report[.atspiError] ?? "")")
        let windows = (tree["windows"] as? [[String: Any]] ?? []).map(Node.init)
        let window = try #require(windows.first { $0.name == "Sign in" }, "\(windows.map { ($0.role, $0.name) })")
        #expect(window.role == "dialog", "announced as a dialog, not a \(window.role)")
        #expect(window.states.contains("modal"))
        #expect(window.description.contains("127.0.0.1"), "the page's host is said with the title: \(window.description)")
        let buttons = window.all.filter { $0.role == "push button" }.map(\.name)
        #expect(buttons.contains("Cancel"), "\(buttons)")
        #expect(!buttons.contains(""), "every button has a name: \(buttons)")
        if platform.toolkit == .gtk3 {
            let focused = (tree["focused"] as? [[String: Any]] ?? []).map { ($0["role"] as? String ?? "", $0["name"] as? String ?? "") }
            #expect(focused.contains { $0 == ("entry", "Email address") }, "a screen reader is on the first field: \(focused)")
        }
    }

    /// A sign-in by keyboard alone, with real key events on a private X display: the focus starts
    /// in the page's first field (the page has no autofocus; on its next page, the field with
    /// autofocus has the focus, not the first one), typing fills it (and Ctrl+A selects it), Tab reaches the page's
    /// button and then (GTK 3) leaves the page for the header bar's named buttons, Shift+Tab comes
    /// back, Tab goes around into the page's first field; F6 and Ctrl+Tab reach the header bar's
    /// Cancel on both toolkits and come back; Enter submits the form; Escape on the
    /// next page ends the sign-in.
    @Test(arguments: Platform.x11)
    func aKeyboardAloneSignsInAndCancels(_ platform: Platform) async throws {
        let report = try await EmbeddedWebviewProviderTests.scenario(.keyboard, on: platform, display: .privateX11)
        let steps = report[.keyboardSteps] ?? []
        let after = { (keys: String) in steps.filter { $0.hasPrefix(keys + " → ") }.map { String($0.dropFirst(keys.count + 3)) } }
        #expect(after("shown") == ["page:user"], "the focus starts in the page's first field: \(steps)")
        #expect(after("type alice") == ["page:user=alice"], "\(steps)")
        let tabs = after("key Tab")
        #expect(tabs.first == "page:next", "Tab goes to the page's button: \(steps)")
        #expect(after("key ctrl+a type bob") == ["page:user=bob"], "the view's editing shortcuts work: \(steps)")
        #expect(!steps.contains { $0.contains("GtkTextView") }, "never in WebKit's hidden text view: \(steps)")
        if platform.toolkit == .gtk3 {
            let toHeader = try #require(tabs.firstIndex { $0.hasPrefix("button:") }, "Tab leaves the page for the header bar: \(steps)")
            #expect(tabs.contains("button:Cancel"), "Cancel is reached by Tab: \(steps)")
            #expect(tabs[toHeader...].contains("page:user=alice"), "Tab comes around into the page's first field: \(steps)")
            let back = after("key shift+Tab").first ?? ""
            #expect(back.hasPrefix("page:") && !back.hasPrefix("page:blurred:"), "Shift+Tab from the header bar goes back into the page: \(steps)")
        } else {
            // WebKitGTK 6.0 (2.4x, GTK 4.8) keeps Tab in the page: past its last element the
            // focus goes around to its first, never to the header bar (Escape is the way out,
            // asserted below). Stated in the README; this holds it to cycling.
            #expect(tabs.contains("page:user=alice"), "Tab goes around the page: \(steps)")
        }
        // F6 and Ctrl+Tab (Shift+Ctrl+Tab back): the header bar's Cancel, then the page again, on
        // both toolkits; on GTK 4 the only way there by keyboard. Back in the page, WebKitGTK 6.0
        // puts the focus where it was; WebKitGTK 4.1 on the page's first element (the link).
        let back = platform.toolkit == .gtk3 ? "page:a" : "page:user=alice"
        #expect(after("key F6") == ["button:Cancel", back], "F6 goes to the header bar and back: \(steps)")
        #expect(after("key ctrl+Tab") == ["button:Cancel"], "\(steps)")
        #expect(after("key ctrl+shift+Tab") == [back], "\(steps)")
        #expect(tabs.last == "page:next", "Tab comes back to the page's button: \(steps)")
        #expect(report[.submittedUser] == "alice", "Enter submitted what was typed: \(steps)")
        #expect(after("next page") == ["page:password"], "\(steps)")
        #expect(report[.outcome] == "userCanceled", "Escape ends the sign-in: \(steps)")
    }
}
