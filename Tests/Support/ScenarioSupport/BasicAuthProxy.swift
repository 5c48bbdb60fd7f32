public import Foundation

/// `Tests/Fixtures/Proxy/basic_auth_proxy.py`: a forwarding proxy on 127.0.0.1 that asks for a
/// Basic user name and password as squid does (407 again to a wrong one, where tinyproxy says
/// 401), and records each request it forwarded or refused.
public final class BasicAuthProxy: Sendable {
    public let port: Int
    public let folder: URL
    private let process: CleanSpawn

    public var url: String { "http://127.0.0.1:\(port)" }

    /// Starts it for `user` and `password`; it is listening once it printed its port.
    public init(user: String, password: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("basic-auth-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let process = try CleanSpawn(
            ["python3", Checkout.fixture("Proxy/basic_auth_proxy.py").path, user, password, folder.appendingPathComponent("requests.log").path],
            environment: ProcessInfo.processInfo.environment, processGroup: true)
        guard let port = String(decoding: process.output!.availableData, as: UTF8.self).split(separator: "\n").first.flatMap({ Int($0) }) else {
            kill(-process.pid, SIGTERM)
            _ = process.waitForExit()
            throw CleanSpawn.Failure(description: "basic_auth_proxy.py printed no port")
        }
        (self.port, self.process) = (port, process)
    }

    /// Every request, as `METHOD URL with|wrong|without` (forwarded; refused a wrong credential; refused none).
    public var requests: [String] {
        ((try? String(contentsOf: folder.appendingPathComponent("requests.log"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The paths it forwarded to `host:port`, query removed.
    public func paths(at authority: String) -> [String] {
        requests.compactMap { line in
            let parts = line.split(separator: " ")
            return parts.count == 3 && parts[2] == "with" ? RecordingProxy.path(method: parts[0], url: parts[1], at: authority) : nil
        }
    }

    public func stop() {
        kill(-process.pid, SIGTERM)
        _ = process.waitForExit()
        try? FileManager.default.removeItem(at: folder)
    }
}
