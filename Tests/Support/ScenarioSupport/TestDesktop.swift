public import Foundation

/// A temporary XDG desktop (`XDG_DATA_HOME`, `XDG_CONFIG_HOME`, `XDG_DATA_DIRS`) in which GIO
/// finds a scripted browser as the default handler for some URI schemes, as on a real desktop,
/// and no browser installed on the machine can answer instead.
public struct TestDesktop: Sendable {
    public let root: URL

    /// - Parameters:
    ///   - browserCommand: the `Exec=` line of the browser's desktop entry (`%u` is the URI);
    ///     `nil` for a desktop with no browser.
    ///   - schemes: the schemes it is the default handler for.
    public init(browserCommand: String?, schemes: [String] = ["http", "https"]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-desktop-\(UUID().uuidString)")
        let applications = root.appendingPathComponent("data/applications")
        let config = root.appendingPathComponent("config")
        let dirs = root.appendingPathComponent("dirs")
        for folder in [applications, config, dirs] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        // The system's data a desktop always has (MIME database, icons, GSettings schemas), but
        // none of its applications, so no installed browser can answer.
        for shared in ["mime", "icons", "glib-2.0"] where FileManager.default.fileExists(atPath: "/usr/share/\(shared)") {
            try FileManager.default.createSymbolicLink(
                at: dirs.appendingPathComponent(shared), withDestinationURL: URL(fileURLWithPath: "/usr/share/\(shared)"))
        }
        guard let browserCommand, !schemes.isEmpty else { return }
        let entry = """
            [Desktop Entry]
            Type=Application
            Name=Test Browser
            Exec=\(browserCommand)
            StartupNotify=true
            MimeType=\(schemes.map { "x-scheme-handler/\($0);" }.joined())

            """
        try entry.write(to: applications.appendingPathComponent("org.example.TestBrowser.desktop"), atomically: true, encoding: .utf8)
        let defaults = "[Default Applications]\n" + schemes.map { "x-scheme-handler/\($0)=org.example.TestBrowser.desktop\n" }.joined()
        try defaults.write(to: config.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
    }

    /// The environment for a scenario process (and the browser GIO starts from it).
    public var environment: [String: String] {
        [
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "XDG_CACHE_HOME": root.appendingPathComponent("cache").path,
            "XDG_DATA_DIRS": root.appendingPathComponent("dirs").path,
            "WEBVIEW_HOST_PROVIDER": "",
            // No accessibility bus: its daemons would outlive the scenario.
            "NO_AT_BRIDGE": "1",
        ]
    }

    public func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}
