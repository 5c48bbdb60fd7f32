public import Foundation

/// A private headless Weston (`weston --backend=headless-backend.so`) that scenario programs
/// show their windows on: its own `XDG_RUNTIME_DIR` (mode 0700, in a temporary folder) and a
/// socket name no other run uses, so parallel runs and a desktop's compositor never meet.
///
/// Start it with ``start(timeout:input:)``, give a child ``environment(from:)``, then ``stop()`` it;
/// or use ``with(timeout:input:_:)``, which stops it however the body ends. Headless, Weston draws
/// nothing (no renderer) and has no input devices: GTK logs `gdk_seat_get_keyboard` criticals, which
/// are harmless.
///
/// With `input`, Weston instead shows its one output as a window of that private X server
/// (`x11-backend.so`, drawn with pixman) under its kiosk shell, which gives the keyboard to the
/// newest toplevel, as a desktop focuses a window just shown. Real input events sent to that X
/// server (`xdotool`, through XTest) reach Weston as a seat's keyboard and pointer, and Weston gives
/// them to the Wayland client: what a person's keys do on a Wayland desktop. The scenario finds the
/// X server in `SCENARIO_INPUT_DISPLAY` (``inputDisplayVariable``).
public final class WaylandCompositor: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The socket's name (`WAYLAND_DISPLAY`).
    public let socketName: String
    /// The folder the socket is in (`XDG_RUNTIME_DIR`); Weston's output is in `weston.log` there.
    public var runtimeDirectory: URL { server.folder }
    /// The X server whose window shows Weston's output and takes its input (`nil`: headless).
    public let inputDisplay: String?
    private let server: ServerProcess

    /// Where a scenario on a compositor with input finds the X server to send its input events to.
    public static let inputDisplayVariable = "SCENARIO_INPUT_DISPLAY"

    private init(socketName: String, inputDisplay: String?, server: ServerProcess) {
        self.socketName = socketName
        self.inputDisplay = inputDisplay
        self.server = server
    }

    /// Starts Weston and returns once its socket accepts connections.
    /// - Throws: ``Failure`` when `weston` is not installed, exits, or has no socket after
    ///   `timeout` (its log is in the message); nothing is left running then.
    ///   With `input`, also when Weston's window does not show on that X server, or cannot be given
    ///   its focus, within `timeout`.
    public static func start(timeout: Duration = Patience.event, input: PrivateXServer? = nil) async throws -> WaylandCompositor {
        let socketName = "wvh-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
        let backend = input == nil ? ["--backend=headless-backend.so"] : ["--backend=x11-backend.so", "--use-pixman", "--shell=kiosk-shell.so"]
        do {
            let server = try ServerProcess(
                folderPrefix: "wvh-wayland",
                arguments: ["weston"] + backend + ["--socket=\(socketName)", "--idle-time=0", "--no-config", "--width=1280", "--height=800"],
                environment: { folder in
                    var environment = ProcessInfo.processInfo.environment
                    for nested in ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"] { environment[nested] = nil }
                    environment["DISPLAY"] = input?.display
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
            if let input {
                // The X focus on Weston's window, once (the only window there, it keeps it): Weston
                // then has the keyboard, and its shell says which client gets the keys.
                let deadline = ContinuousClock.now + timeout
                while await input.xdotool(["getwindowfocus", "getwindowname"])?.hasPrefix("Weston Compositor") != true {
                    guard ContinuousClock.now < deadline else {
                        await server.stop()
                        throw Failure(description: "Weston's window on \(input.display) did not take the focus within \(timeout)")
                    }
                    _ = await input.xdotool(["search", "--classname", "^weston", "windowfocus"])
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            return WaylandCompositor(socketName: socketName, inputDisplay: input?.display, server: server)
        } catch let problem as ServerProcess.Problem {
            throw Failure(description: problem.description)
        }
    }

    /// Starts a compositor, runs `body` with it, and stops it, whether `body` returns or throws.
    public static func with<Value>(
        timeout: Duration = Patience.event, input: PrivateXServer? = nil, _ body: (WaylandCompositor) async throws -> Value
    ) async throws -> Value {
        try await ServerProcess.using(try await start(timeout: timeout, input: input), stop: { await $0.stop() }, body)
    }

    /// `base` as a GTK program needs it to run on this compositor: `WAYLAND_DISPLAY`,
    /// `XDG_RUNTIME_DIR`, `GDK_BACKEND=wayland`, and no `DISPLAY` (nor an inherited `WAYLAND_SOCKET`);
    /// with input, the X server to send it to in ``inputDisplayVariable``.
    public func environment(from base: [String: String]) -> [String: String] {
        var environment = base
        environment[Self.inputDisplayVariable] = inputDisplay
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
