public import Foundation

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
    public var runtimeDirectory: URL { server.folder }
    private let server: ServerProcess

    private init(socketName: String, server: ServerProcess) {
        self.socketName = socketName
        self.server = server
    }

    /// Starts Weston and returns once its socket accepts connections.
    /// - Throws: ``Failure`` when `weston` is not installed, exits, or has no socket after
    ///   `timeout` (its log is in the message); nothing is left running then.
    public static func start(timeout: Duration = Patience.event) async throws -> WaylandCompositor {
        let socketName = "wvh-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
        do {
            let server = try ServerProcess(
                folderPrefix: "wvh-wayland",
                arguments: [
                    "weston", "--backend=headless-backend.so", "--socket=\(socketName)", "--idle-time=0", "--no-config",
                    "--width=1280", "--height=800",
                ],
                environment: { folder in
                    var environment = ProcessInfo.processInfo.environment
                    for nested in ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"] { environment[nested] = nil }
                    environment["XDG_RUNTIME_DIR"] = folder.path
                    return environment
                },
                output: "weston.out", log: "weston.log", installHint: "Debian: apt-get install weston, as .ci/install does")
            let socket = server.path(socketName)
            guard socket.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
                await server.stop()
                throw Failure(description: "the socket path \(socket) is too long for a Unix socket: set TMPDIR to a shorter folder")
            }
            _ = try await server.waitUntilReady(for: "socket at \(socket)", timeout: timeout) {
                acceptsConnections(socket) ? true : nil
            }
            return WaylandCompositor(socketName: socketName, server: server)
        } catch let problem as ServerProcess.Problem {
            throw Failure(description: problem.description)
        }
    }

    /// Starts a compositor, runs `body` with it, and stops it, whether `body` returns or throws.
    public static func with<Value>(
        timeout: Duration = Patience.event, _ body: (WaylandCompositor) async throws -> Value
    ) async throws -> Value {
        try await ServerProcess.using(try await start(timeout: timeout), stop: { await $0.stop() }, body)
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
        await server.stop()
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
