import Foundation

/// `Tests/Fixtures/Proxy/proxy_portal.py`: xdg-desktop-portal's ProxyResolver on a private
/// session bus, answering `proxy` for every URI (the host's resolver, GNOME's with an
/// authenticating proxy, writes its user name and password into the URI), `direct://` for the
/// `direct` hosts. A scenario given ``environment`` takes it as GIO's default resolver, as a
/// Flatpak app does (`GTK_USE_PORTAL=1`: GLib uses the portals outside a sandbox too).
public final class ProxyPortal: Sendable {
    /// The private bus's address (`DBUS_SESSION_BUS_ADDRESS`).
    public let address: String
    private let folder: URL
    private let process: CleanSpawn

    /// Starts it; the portal owns its name once it printed the bus's address.
    public init(proxy: String, direct: [String] = []) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-portal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let process = try CleanSpawn(
            ["/usr/bin/python3", Checkout.fixture("Proxy/proxy_portal.py").path, folder.appendingPathComponent("lookups.log").path, proxy] + direct,
            environment: ProcessInfo.processInfo.environment, processGroup: true)
        guard let address = String(decoding: process.output!.availableData, as: UTF8.self).split(separator: "\n").first.map(String.init),
            address.hasPrefix("unix:")
        else {
            kill(-process.pid, SIGTERM)
            _ = process.waitForExit()
            throw CleanSpawn.Failure(description: "proxy_portal.py printed no bus address")
        }
        (self.address, self.process) = (address, process)
    }

    /// What a scenario needs to take the portal as its proxy resolver.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address, "GTK_USE_PORTAL": "1"] }

    /// Every URI looked up, in order.
    public var lookups: [String] {
        ((try? String(contentsOf: folder.appendingPathComponent("lookups.log"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    public func stop() {
        kill(-process.pid, SIGTERM)
        _ = process.waitForExit()
        try? FileManager.default.removeItem(at: folder)
    }
}
