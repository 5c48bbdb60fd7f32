import Foundation
import ScenarioSupport

/// A temporary desktop (ScenarioSupport's `TestDesktop`) whose default web browser is the
/// scripted test browser, `Tests/Fixtures/TestBrowser/test-browser.py`, logging what it does.
struct TestBrowserDesktop {
    enum Browser {
        /// The test browser handles http and https.
        case registered
        /// Only https has a handler: the provider is available, but the http authorization URL has no handler.
        case httpsOnly
        /// No handler at all.
        case none
        /// The handler for http and https is this `Exec` line (`%u` is the URI).
        case command(String)
        /// The handler is this script (written to an executable file of its own; the test
        /// browser's path replaces `{browser}`), started with the URI as its argument.
        case script(String)
    }

    static let browserScript = Checkout.fixture("TestBrowser").appendingPathComponent("test-browser.py")

    let desktop: TestDesktop
    var root: URL { desktop.root }
    var browserLog: URL { root.appendingPathComponent("browser.log") }

    /// The handler script of `.script`, removed with the desktop.
    let handler: URL?

    init(_ browser: Browser) throws {
        let command = "python3 \(Self.browserScript.path) %u"
        switch browser {
        case .registered: desktop = try TestDesktop(browserCommand: command); handler = nil
        case .httpsOnly: desktop = try TestDesktop(browserCommand: command, schemes: ["https"]); handler = nil
        case .none: desktop = try TestDesktop(browserCommand: nil); handler = nil
        case .command(let exec): desktop = try TestDesktop(browserCommand: exec); handler = nil
        case .script(let text):
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-handler-\(UUID().uuidString)")
            try ExecutableFile.write(text.replacingOccurrences(of: "{browser}", with: Self.browserScript.path), to: file.path)
            handler = file
            desktop = try TestDesktop(browserCommand: "\(file.path) %u")
        }
    }

    /// The environment for the scenario process (and the browser GIO starts from it).
    var environment: [String: String] {
        desktop.environment.merging(["TEST_BROWSER_LOG": browserLog.path]) { $1 }
    }

    func remove() {
        desktop.remove()
        if let handler { try? FileManager.default.removeItem(at: handler) }
    }
}
