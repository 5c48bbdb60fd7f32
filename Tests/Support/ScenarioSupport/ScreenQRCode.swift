import Foundation

/// What a phone's camera would read on the screen: a screenshot of the whole X display
/// (ImageMagick's `import -window root`, kept in `screenshot`) read by `zbarimg` (zbar-tools).
///
/// Both programs run as children collected on threads of their own (``CleanSpawn/collect()``):
/// the caller's main loop goes on meanwhile. A screenshot taken while the GTK main loop is held
/// by a synchronous wait can show a window not painted yet, and on a loaded machine each look
/// held it for seconds.
public enum ScreenQRCode {
    /// The text of the QR code on the screen now, or "" when none was found.
    public static func read(screenshot: String) async -> String {
        _ = await run(["import", "-window", "root", screenshot])
        return await run(["zbarimg", "--quiet", "--raw", screenshot]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Looks again (a fresh screenshot each time) until a QR code is read or `deadline` has
    /// passed; its text, or "".
    public static func read(screenshot: String, upTo deadline: Duration) async -> String {
        let end = ContinuousClock.now + deadline
        repeat {
            let decoded = await read(screenshot: screenshot)
            if !decoded.isEmpty { return decoded }
            try? await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < end
        return ""
    }

    private static func run(_ arguments: [String]) async -> String {
        guard let child = try? CleanSpawn(arguments, environment: ProcessInfo.processInfo.environment) else { return "" }
        let collected = await child.collect()
        return collected.status == 0 ? String(decoding: collected.output, as: UTF8.self) : ""
    }
}
