import WebviewHostGTK3
import Foundation
import ScenarioSupport
import SystemBrowserProvider
import WebviewHost

/// `CustomSchemeRegistration.install` with an executable whose path holds `%`, spaces, quotes,
/// `$`, a backtick and a backslash; then `gio open` on the scheme starts it through GIO.
enum InstallOddPath {
    static let folderName = "wvh 100% it's \"q\" $HOME `x` back\\slash"

    /// - Parameter percent: whether the path holds `%` (started through /bin/sh) or only the
    ///   other reserved characters (the program is the Exec line's first word).
    @MainActor
    static func run(percent: Bool = true) throws -> ScenarioReport {
        var report = ScenarioReport()
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("wvh-odd-\(getpid())")
        let folder = base.appendingPathComponent(percent ? folderName : folderName.replacingOccurrences(of: "%", with: ""))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let handler = folder.appendingPathComponent(percent ? "handler 50%" : "handler")
        let argsFile = base.appendingPathComponent("args")
        try "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" > \"$WVH_ARGS_FILE\"\n".write(to: handler, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: handler.path)
        report[.handlerPath] = handler.path
        let scheme = "com.example.oddpath"
        do {
            let entry = try CustomSchemeRegistration.install(
                scheme: scheme, applicationID: "com.example.OddPath", executable: handler.path, displayName: "Odd")
            let keyFile = g_key_file_new()!
            defer { g_key_file_free(keyFile) }
            _ = g_key_file_load_from_file(keyFile, entry.path, G_KEY_FILE_NONE, nil)
            if let exec = g_key_file_get_string(keyFile, "Desktop Entry", "Exec", nil) {
                report[.execLine] = String(cString: exec)
                g_free(exec)
            }
        } catch {
            report[.installError] = error.message
            return report
        }
        let uri = "\(scheme):/cb?x=1%202"
        report[.openedURI] = uri
        var environment = ProcessInfo.processInfo.environment
        environment["WVH_ARGS_FILE"] = argsFile.path
        let gio = try CleanSpawn(["timeout", "10", "gio", "open", uri], environment: environment)
        report[.gioStatus] = Int(gio.waitForExit())
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: argsFile.path) { usleep(50_000) }
        usleep(100_000)
        let lines = ((try? String(contentsOf: argsFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        report[.handlerArguments] = lines
        return report
    }
}
