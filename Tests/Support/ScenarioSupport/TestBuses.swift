import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One accessibility bus per test process, which every program the tests start is given
/// (``CleanSpawn`` names it in `AT_SPI_BUS_ADDRESS`): a bus as at-spi-bus-launcher starts one on
/// a desktop, where the accessibility registry is started on first use, but not published on the
/// display and at a socket of its own, so that no other test's bus can take its place.
///
/// Not no bus: WebKitGTK 6.0 puts a D-Bus proxy for the accessibility bus in front of its
/// sandboxed web process and stops the whole program when the proxy cannot connect, and GTK 4
/// reports a bus without a registry as a critical (fatal where a test makes criticals fatal).
enum TestAccessibilityBus {
    /// The bus's address, or `nil` if it could not be started (programs then look for one as
    /// they would without the tests).
    static let address: String? = TestProcessBus.start(
        // The accessibility services only (the registry), as at-spi-bus-launcher's bus has.
        named: "a11y", serviceDirectories: ["/usr/share/dbus-1/accessibility-services"])
}

/// One session bus per test process, which every program the tests start without a session bus
/// of its own is given (``CleanSpawn`` names it in `DBUS_SESSION_BUS_ADDRESS`): a desktop always
/// has one, and without it GLib autolaunches one for the X display (`dbus-launch --autolaunch`,
/// run synchronously by the first `g_bus_get_sync`), which a full run saw never return: WebKit's
/// main thread then waited on the bus for 160 s. No service can be started on this bus, as on a
/// desktop without those services: a call to a portal or a Secret Service fails at once.
/// Programs that need their own services run under `dbus-run-session`, which names its own bus.
enum TestSessionBus {
    static let address: String? = TestProcessBus.start(named: "session", serviceDirectories: [])
}

/// A private D-Bus daemon that lives as long as the test process: it runs under a shell that
/// reads a pipe only this process writes to, and kills it at end of file; what the bus started
/// ends with it.
enum TestProcessBus {
    /// The bus's address once it listens, or `nil` if it could not be started.
    static func start(named name: String, serviceDirectories: [String]) -> String? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-\(name)-bus-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let socket = folder.appendingPathComponent("bus").path
        let configuration = folder.appendingPathComponent("bus.conf")
        let text = PrivateBusConfiguration.text(listen: "unix:path=\(socket)", serviceDirectories: serviceDirectories)
        guard (try? text.write(to: configuration, atomically: true, encoding: .utf8)) != nil else { return nil }
        var lifeline: [Int32] = [-1, -1]
        guard pipe(&lifeline) == 0 else { return nil }
        // The write end stays open in this process only (close-on-exec: no other child keeps it).
        _ = fcntl(lifeline[1], F_SETFD, FD_CLOEXEC)
        // Nothing of the shell writes to a pipe this process closes (which would end it first).
        let script = """
            exec 2>/dev/null
            dbus-daemon --config-file="$1" --nofork --print-address=1 &
            daemon=$!
            cat > /dev/null
            kill "$daemon"
            rm -rf "$2"
            """
        guard let child = try? CleanSpawn(
            ["sh", "-c", script, "sh", configuration.path, folder.path],
            // What the bus starts (the accessibility registry) finds its bus in
            // AT_SPI_BUS_ADDRESS and takes the same bus for the session bus, where it looks for a
            // session manager (none: at once, nothing started). Both set: CleanSpawn then asks
            // for no test bus while starting one.
            environment: ProcessInfo.processInfo.environment.merging(
                ["AT_SPI_BUS_ADDRESS": "unix:path=\(socket)", "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(socket)"]) { $1 },
            input: lifeline[0])
        else { return nil }
        close(lifeline[0])
        // The daemon prints its address once it listens: read that line, then leave the pipe be.
        guard let output = child.output else { return nil }
        var line = Data()
        var byte: UInt8 = 0
        while read(output.fileDescriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        let address = String(decoding: line, as: UTF8.self)
        return address.hasPrefix("unix:") ? address : nil
    }
}
