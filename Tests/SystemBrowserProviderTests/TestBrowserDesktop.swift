import Foundation
import ScenarioSupport

/// A temporary desktop (ScenarioSupport's `TestDesktop`) whose default web browser is the
/// scripted test browser, `Tests/TestBrowser/test-browser.py`, logging what it does.
struct TestBrowserDesktop {
    enum Browser {
        /// The test browser handles http and https.
        case registered
        /// Only https has a handler: the provider is available, but the http authorization URL has no handler.
        case httpsOnly
        /// No handler at all.
        case none
    }

    static let browserScript = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TestBrowser/test-browser.py")

    let desktop: TestDesktop
    var root: URL { desktop.root }
    var browserLog: URL { root.appendingPathComponent("browser.log") }

    init(_ browser: Browser) throws {
        let command = "python3 \(Self.browserScript.path) %u"
        switch browser {
        case .registered: desktop = try TestDesktop(browserCommand: command)
        case .httpsOnly: desktop = try TestDesktop(browserCommand: command, schemes: ["https"])
        case .none: desktop = try TestDesktop(browserCommand: nil)
        }
    }

    /// The environment for the scenario process (and the browser GIO starts from it).
    var environment: [String: String] {
        desktop.environment.merging(["TEST_BROWSER_LOG": browserLog.path]) { $1 }
    }

    func remove() { desktop.remove() }
}
