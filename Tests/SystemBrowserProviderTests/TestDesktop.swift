import Foundation

/// A temporary XDG setup (`XDG_DATA_HOME`, `XDG_CONFIG_HOME`, `XDG_DATA_DIRS`) in which GIO finds
/// the scripted test browser as the default web browser, as it would on a desktop.
struct TestDesktop {
    enum Browser {
        /// The test browser handles http and https.
        case registered
        /// Only https has a handler: the provider is available, but the http authorization URL has no handler.
        case httpsOnly
        /// No handler at all.
        case none
    }

    let root: URL
    let browserLog: URL

    static let browserScript = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TestBrowser/test-browser.py")

    init(_ browser: Browser) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("sbp-\(UUID().uuidString)")
        browserLog = root.appendingPathComponent("browser.log")
        let applications = root.appendingPathComponent("data/applications")
        let config = root.appendingPathComponent("config")
        for folder in [applications, config, root.appendingPathComponent("dirs")] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let exec: String
        let schemes: [String]
        switch browser {
        case .registered: (exec, schemes) = ("python3 \(Self.browserScript.path) %u", ["http", "https"])
        case .httpsOnly: (exec, schemes) = ("python3 \(Self.browserScript.path) %u", ["https"])
        case .none: (exec, schemes) = ("", [])
        }
        if !schemes.isEmpty {
            let entry = """
                [Desktop Entry]
                Type=Application
                Name=Test Browser
                Exec=\(exec)
                MimeType=\(schemes.map { "x-scheme-handler/\($0);" }.joined())

                """
            try entry.write(to: applications.appendingPathComponent("org.example.TestBrowser.desktop"), atomically: true, encoding: .utf8)
            let defaults = "[Default Applications]\n"
                + schemes.map { "x-scheme-handler/\($0)=org.example.TestBrowser.desktop\n" }.joined()
            try defaults.write(to: config.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        }
    }

    /// The environment for the scenario process (and the browser GIO starts from it).
    var environment: [String: String] {
        [
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            // No system data dirs: no browser installed on the machine can answer instead.
            "XDG_DATA_DIRS": root.appendingPathComponent("dirs").path,
            // GTK still needs the system's GSettings schemas.
            "GSETTINGS_SCHEMA_DIR": "/usr/share/glib-2.0/schemas",
            "TEST_BROWSER_LOG": browserLog.path,
            // No accessibility bridge: it would autolaunch a session bus (dbus-launch) that outlives the test.
            "NO_AT_BRIDGE": "1",
        ]
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}
