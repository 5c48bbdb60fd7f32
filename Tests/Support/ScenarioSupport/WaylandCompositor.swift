public import Foundation
import Synchronization

/// A private headless Weston (`weston --backend=headless-backend.so`) that scenario programs
/// show their windows on: its own `XDG_RUNTIME_DIR` (mode 0700, in a temporary folder) and a
/// socket name no other run uses, so parallel runs and a desktop's compositor never meet.
///
/// Start it with ``start(timeout:)``, give a child ``environment(from:)``, then ``stop()`` it;
/// or use ``with(_:)``, which stops it however the body ends. Weston draws nothing (no renderer)
/// and has no input devices: GTK logs `gdk_seat_get_keyboard` criticals, which are harmless.
public final class WaylandCompositor: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The socket's name (`WAYLAND_DISPLAY`).
    public let socketName: String
    /// The folder the socket is in (`XDG_RUNTIME_DIR`); Weston's output is in `weston.log` there.
    public let runtimeDirectory: URL
    private let weston: CleanSpawn
    private let stopped = Mutex(false)

    private init(socketName: String, runtimeDirectory: URL, weston: CleanSpawn) {
        self.socketName = socketName
        self.runtimeDirectory = runtimeDirectory
        self.weston = weston
    }

    /// Starts Weston and returns once its socket accepts connections.
    /// - Throws: ``Failure`` when `weston` is not installed, exits, or has no socket after
    ///   `timeout` (its log is in the message); nothing is left running then.
    public static func start(timeout: Duration = Patience.event) async throws -> WaylandCompositor {
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-wayland-\(tag)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let socketName = "wvh-\(getpid())-\(tag)"
        let socket = directory.appendingPathComponent(socketName).path
        guard socket.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            try? FileManager.default.removeItem(at: directory)
            throw Failure(description: "the socket path \(socket) is too long for a Unix socket: set TMPDIR to a shorter folder")
        }
        let log = directory.appendingPathComponent("weston.log").path
        var environment = ProcessInfo.processInfo.environment
        for nested in ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"] { environment[nested] = nil }
        environment["XDG_RUNTIME_DIR"] = directory.path
        let weston: CleanSpawn
        do {
            weston = try CleanSpawn(
                ["weston", "--backend=headless-backend.so", "--socket=\(socketName)", "--idle-time=0", "--no-config",
                 "--width=1280", "--height=800"],
                environment: environment, outputFiles: (output: "/dev/null", errors: log), processGroup: true)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw Failure(description: "could not start weston (Debian: apt-get install weston, as .ci/install does): \(error)")
        }
        let compositor = WaylandCompositor(socketName: socketName, runtimeDirectory: directory, weston: weston)
        let deadline = ContinuousClock.now + timeout
        while !acceptsConnections(socket) {
            let problem =
                weston.hasEnded() ? "weston exited before its socket was ready"
                : ContinuousClock.now >= deadline ? "weston had no socket at \(socket) after \(timeout)"
                : Task.isCancelled ? "cancelled while waiting for weston's socket" : nil
            if let problem {
                let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                await compositor.stop()
                throw Failure(description: "\(problem). Its log:\n\(output.suffix(3000))")
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return compositor
    }

    /// Starts a compositor, runs `body` with it, and stops it, whether `body` returns or throws.
    public static func with<Value>(
        timeout: Duration = Patience.event, _ body: (WaylandCompositor) async throws -> Value
    ) async throws -> Value {
        let compositor = try await start(timeout: timeout)
        do {
            let result = try await body(compositor)
            await compositor.stop()
            return result
        } catch {
            await compositor.stop()
            throw error
        }
    }

    /// `base` as a GTK program needs it to run on this compositor: `WAYLAND_DISPLAY`,
    /// `XDG_RUNTIME_DIR`, `GDK_BACKEND=wayland`, and no `DISPLAY` (nor an inherited `WAYLAND_SOCKET`).
    public func environment(from base: [String: String]) -> [String: String] {
        var environment = base
        environment["DISPLAY"] = nil
        environment["WAYLAND_SOCKET"] = nil
        environment["WAYLAND_DISPLAY"] = socketName
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory.path
        environment["GDK_BACKEND"] = "wayland"
        return environment
    }

    /// Ends Weston and its helper clients (its process group), reaps it and removes its folder,
    /// once; later calls do nothing. `SIGTERM` first, `SIGKILL` after 5 s or on cancellation.
    public func stop() async {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        kill(-weston.pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(5)
        while !weston.hasEnded(), ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
        }
        // Weston is not reaped yet, so its group ID is still its own: this reaches nothing else.
        kill(-weston.pid, SIGKILL)
        _ = weston.waitForExit()
        try? FileManager.default.removeItem(at: runtimeDirectory)
    }

    /// Whether a Unix socket at `path` accepts a connection (the file alone can appear a moment
    /// before the compositor listens on it).
    private static func acceptsConnections(_ path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
    }
}
