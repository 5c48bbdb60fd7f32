import Foundation

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
    private let server: ServerProcess

    private init(display: String, server: ServerProcess) {
        self.display = display
        self.server = server
    }

    /// Starts Xvfb on a display number it picks itself (no race with parallel runs) and returns
    /// once it accepts connections (Xvfb writes the number to `-displayfd` only then).
    /// - Throws: ``Failure`` when `Xvfb` is not installed, exits, or is not ready after `timeout`
    ///   (its log is in the message); nothing is left running then.
    public static func start(timeout: Duration = Patience.event) async throws -> PrivateXServer {
        do {
            let server = try ServerProcess(
                folderPrefix: "wvh-xvfb",
                arguments: ["Xvfb", "-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset"],
                environment: { _ in ProcessInfo.processInfo.environment }, output: "display", log: "xvfb.log",
                installHint: "Debian: apt-get install xvfb, as .ci/install does")
            let number = try await server.waitUntilReady(for: "display number from Xvfb", timeout: timeout) { () -> Int? in
                let written = (try? String(contentsOfFile: server.path("display"), encoding: .utf8)) ?? ""
                return written.hasSuffix("\n") ? Int(written.trimmingCharacters(in: .whitespacesAndNewlines)) : nil
            }
            return PrivateXServer(display: ":\(number)", server: server)
        } catch let problem as ServerProcess.Problem {
            throw Failure(description: problem.description)
        }
    }

    /// Starts a server, runs `body` with it, and stops it, whether `body` returns or throws.
    public static func with<Value>(
        timeout: Duration = Patience.event, _ body: (PrivateXServer) async throws -> Value
    ) async throws -> Value {
        try await ServerProcess.using(try await start(timeout: timeout), stop: { await $0.stop() }, body)
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

    /// Runs `xdotool arguments...` on this server (real input events through XTest, or a query);
    /// what it printed, `nil` when it failed or could not start.
    public func xdotool(_ arguments: [String]) async -> String? {
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        guard let child = try? CleanSpawn(["xdotool"] + arguments, environment: environment) else { return nil }
        let collected = await child.collect()
        return collected.status == 0 ? String(decoding: collected.output, as: UTF8.self) : nil
    }

    /// Ends Xvfb, reaps it and removes its folder, once; later calls do nothing. `SIGTERM`
    /// first, `SIGKILL` after 5 s or on cancellation.
    public func stop() async {
        await server.stop()
    }
}
