import Foundation
import Synchronization

/// A private Xvfb (`Xvfb -displayfd`) that one scenario program shows its windows on.
///
/// The tests' own X display (`xvfb-run -a`) is shared by every test running in parallel, and
/// without a window manager every window opens at the same place: a real click (an XTest event
/// through `xdotool`) lands on whichever window is on top there, which may be another test's.
/// On a display of its own the scenario's windows are the only ones, so its input reaches them.
///
/// Start it with ``start(timeout:)``, give a child ``environment(from:)``, then ``stop()`` it;
/// or use ``with(_:)``, which stops it however the body ends.
public final class PrivateXServer: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The display's name (`DISPLAY`), such as `:5`.
    public let display: String
    private let folder: URL
    private let xvfb: CleanSpawn
    private let stopped = Mutex(false)

    private init(display: String, folder: URL, xvfb: CleanSpawn) {
        self.display = display
        self.folder = folder
        self.xvfb = xvfb
    }

    /// Starts Xvfb on a display number it picks itself (no race with parallel runs) and returns
    /// once it accepts connections (Xvfb writes the number to `-displayfd` only then).
    /// - Throws: ``Failure`` when `Xvfb` is not installed, exits, or is not ready after `timeout`
    ///   (its log is in the message); nothing is left running then.
    public static func start(timeout: Duration = Patience.event) async throws -> PrivateXServer {
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-xvfb-\(tag)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let numberFile = folder.appendingPathComponent("display").path
        let log = folder.appendingPathComponent("xvfb.log").path
        let xvfb: CleanSpawn
        do {
            xvfb = try CleanSpawn(
                ["Xvfb", "-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset"],
                environment: ProcessInfo.processInfo.environment, outputFiles: (output: numberFile, errors: log), processGroup: true)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw Failure(description: "could not start Xvfb (Debian: apt-get install xvfb, as .ci/install does): \(error)")
        }
        let deadline = ContinuousClock.now + timeout
        while true {
            let written = (try? String(contentsOfFile: numberFile, encoding: .utf8)) ?? ""
            if written.hasSuffix("\n"), let number = Int(written.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return PrivateXServer(display: ":\(number)", folder: folder, xvfb: xvfb)
            }
            let problem =
                xvfb.hasEnded() ? "Xvfb exited before it was ready"
                : ContinuousClock.now >= deadline ? "Xvfb was not ready after \(timeout)"
                : Task.isCancelled ? "cancelled while waiting for Xvfb" : nil
            if let problem {
                let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                await PrivateXServer(display: "", folder: folder, xvfb: xvfb).stop()
                throw Failure(description: "\(problem). Its log:\n\(output.suffix(3000))")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Starts a server, runs `body` with it, and stops it, whether `body` returns or throws.
    public static func with<Value>(
        timeout: Duration = Patience.event, _ body: (PrivateXServer) async throws -> Value
    ) async throws -> Value {
        let server = try await start(timeout: timeout)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// `base` as a GTK program needs it to run on this server only: its `DISPLAY`,
    /// `GDK_BACKEND=x11`, and no Wayland variables.
    public func environment(from base: [String: String]) -> [String: String] {
        var environment = base
        environment["DISPLAY"] = display
        environment["WAYLAND_DISPLAY"] = nil
        environment["WAYLAND_SOCKET"] = nil
        environment["GDK_BACKEND"] = "x11"
        return environment
    }

    /// Ends Xvfb, reaps it and removes its folder, once; later calls do nothing. `SIGTERM`
    /// first, `SIGKILL` after 5 s or on cancellation.
    public func stop() async {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        kill(-xvfb.pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(5)
        while !xvfb.hasEnded(), ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
        }
        // Xvfb is not reaped yet, so its group ID is still its own: this reaches nothing else.
        kill(-xvfb.pid, SIGKILL)
        _ = xvfb.waitForExit()
        try? FileManager.default.removeItem(at: folder)
    }
}
