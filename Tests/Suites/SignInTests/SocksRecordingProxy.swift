import Foundation
import ScenarioSupport

/// What a recording proxy carried, as `METHOD path` per request at `host:port`.
protocol ProxyRecording {
    func paths(at authority: String) -> [String]
}

extension RecordingProxy: ProxyRecording {}
extension BasicAuthProxy: ProxyRecording {}

/// `Tests/Fixtures/SocksProxy/socks_recorder.py`: a SOCKS5 proxy on 127.0.0.1 that records every
/// tunnel it opens and every HTTP request it sees going through one (Debian has no SOCKS server
/// that logs requests): the route a test gives an app as `socks5://127.0.0.1:PORT`.
final class SocksRecordingProxy: ProxyRecording, Sendable {
    static let script = Checkout.fixture("SocksProxy").appendingPathComponent("socks_recorder.py")
    let port: Int
    private let process: CleanSpawn
    private let lines: LineWaiter

    var url: String { "socks5://127.0.0.1:\(port)" }

    init() async throws {
        let process = try CleanSpawn(["/usr/bin/python3", Self.script.path], environment: ProcessInfo.processInfo.environment, processGroup: true)
        let lines = LineWaiter()
        lines.read(process.output)
        let ready: String
        do {
            ready = try await lines.next { $0.hasPrefix("READY ") }
        } catch {
            kill(-process.pid, SIGTERM)
            _ = process.waitForExit()
            throw error
        }
        guard let port = Int(ready.dropFirst(6)) else { throw BrokerDoubleError("the SOCKS recorder said \(ready)") }
        (self.port, self.process, self.lines) = (port, process, lines)
    }

    /// The tunnels it opened, as `host:port`.
    var tunnels: [String] { lines.seen.filter { $0.hasPrefix("CONNECT ") }.map { String($0.dropFirst(8)) } }

    func paths(at authority: String) -> [String] {
        lines.seen.compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 3)
            guard parts.count == 4, parts[0] == "REQUEST", parts[1] == authority else { return nil }
            return "\(parts[2]) \(parts[3].split(separator: "?", maxSplits: 1).first ?? "")"
        }
    }

    func stop() {
        kill(-process.pid, SIGTERM)
        _ = process.waitForExit()
    }
}
