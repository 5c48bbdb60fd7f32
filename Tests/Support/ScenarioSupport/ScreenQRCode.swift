import Foundation

/// What a phone's camera would read on the screen: a screenshot of the whole X display
/// (ImageMagick's `import -window root`, kept in `screenshot`) read by `zbarimg` (zbar-tools).
public enum ScreenQRCode {
    /// The text of the QR code on the screen now, or "" when none was found.
    public static func read(screenshot: String) -> String {
        _ = run(["import", "-window", "root", screenshot])
        return run(["zbarimg", "--quiet", "--raw", screenshot]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func run(_ arguments: [String]) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "" }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : ""
    }
}
