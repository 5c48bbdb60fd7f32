public import Foundation

/// A real HTTP proxy on 127.0.0.1 (Debian's tinyproxy) that logs every request it carries: the
/// route a test gives the desktop, and what went through it.
public final class RecordingProxy: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let port: Int
    public let folder: URL
    private let process: CleanSpawn

    /// `http://127.0.0.1:<port>`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Starts tinyproxy in the foreground on a free port and waits (scaled deadline) until it
    /// accepts connections; with `basicAuth`, it answers 407 to requests without that user and
    /// password. A port another program took between the probe and tinyproxy's bind (tinyproxy
    /// then ends at once) is replaced by another, twice at most.
    public init(basicAuth: (user: String, password: String)? = nil) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tinyproxy-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let log = folder.appendingPathComponent("tinyproxy.log").path
        var attempt = 1
        while true {
            let port = try Self.freePort()
            let process = try Self.start(on: port, basicAuth: basicAuth, in: folder, log: log)
            switch await Self.waitUntilListening(process, log: log) {
            case .listening:
                self.port = port
                self.process = process
                return
            case .ended where attempt < 3:
                attempt += 1
                try? FileManager.default.removeItem(atPath: log)
            case let outcome:
                kill(-process.pid, SIGTERM)
                _ = process.waitForExit()
                let said = [(try? String(contentsOfFile: log, encoding: .utf8)) ?? "", (try? String(contentsOf: folder.appendingPathComponent("err"), encoding: .utf8)) ?? ""]
                try? FileManager.default.removeItem(at: folder)
                throw Failure(description: "tinyproxy did not start listening on port \(port) (\(outcome == .ended ? "it ended, \(attempt) ports tried" : "not within the deadline")): \(said.joined(separator: "\n"))")
            }
        }
    }

    private enum Start { case listening, ended, late }

    /// tinyproxy in the foreground on `port` (its own process group), configured in `folder`.
    private static func start(on port: Int, basicAuth: (user: String, password: String)?, in folder: URL, log: String) throws -> CleanSpawn {
        let configuration = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 60
            LogFile "\(log)"
            LogLevel Info
            MaxClients 100
            Allow 127.0.0.1
            \(basicAuth.map { "BasicAuth \($0.user) \($0.password)" } ?? "")
            """
        let file = folder.appendingPathComponent("tinyproxy.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        do {
            return try CleanSpawn(
                ["tinyproxy", "-d", "-c", file.path], environment: ProcessInfo.processInfo.environment,
                outputFiles: (output: folder.appendingPathComponent("out").path, errors: folder.appendingPathComponent("err").path),
                processGroup: true)
        } catch {
            throw Failure(description: "could not start tinyproxy (apt-get install tinyproxy): \(error)")
        }
    }

    /// Until tinyproxy's log says it accepts connections, it ends, or the (scaled) deadline passes.
    private static func waitUntilListening(_ process: CleanSpawn, log: String) async -> Start {
        let deadline = ContinuousClock.now + Patience.scaled(.seconds(10))
        while true {
            if (try? String(contentsOfFile: log, encoding: .utf8))?.contains("Accepting connections") ?? false { return .listening }
            if process.hasEnded() { return .ended }
            if ContinuousClock.now > deadline { return .late }
            try? await Task.sleep(for: .milliseconds(20))  // polling its log for readiness, with a deadline
        }
    }

    /// Every request it carried, as `METHOD URL` (its log's `Request` lines).
    public var requests: [String] {
        logText.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "]: Request (file descriptor ") else { return nil }
            guard let colon = line[range.upperBound...].firstIndex(of: ":") else { return nil }
            let request = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            return request.replacingOccurrences(of: " HTTP/1.1", with: "").replacingOccurrences(of: " HTTP/1.0", with: "")
        }
    }

    /// The paths requested at `host:port` through the proxy, query removed.
    public func paths(at authority: String) -> [String] {
        requests.compactMap { request in
            let parts = request.split(separator: " ")
            return parts.count == 2 ? Self.path(method: parts[0], url: parts[1], at: authority) : nil
        }
    }

    /// `METHOD /path` of a proxied request for `url`, when it went to `authority` (`host:port`); query removed.
    static func path(method: Substring, url: Substring, at authority: String) -> String? {
        guard let url = URLComponents(string: String(url)), "\(url.host ?? ""):\(url.port ?? 80)" == authority else { return nil }
        return "\(method) \(url.path)"
    }

    /// Runs `body` (a scenario through this proxy); an error it throws comes back with the end of
    /// the proxy's log (what it carried and refused), so that a sign-in that never ended says
    /// where its requests went.
    public func explaining<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await body()
        } catch {
            throw Failure(description: "\(error)\nthe proxy's log ends: \(logText.split(separator: "\n").suffix(40).joined(separator: "\n"))")
        }
    }

    /// tinyproxy's log as it is now (`""` before it has one).
    private var logText: String {
        (try? String(contentsOf: folder.appendingPathComponent("tinyproxy.log"), encoding: .utf8)) ?? ""
    }

    /// Ends tinyproxy and removes its folder.
    public func stop() {
        kill(-process.pid, SIGTERM)
        _ = process.waitForExit()
        try? FileManager.default.removeItem(at: folder)
    }

    /// A port nothing listens on now, below Linux's ephemeral range (32768-60999): a port the
    /// kernel picks for `bind(0)` is in that range, where any outgoing connection of the machine
    /// can take it before the program that was to listen there binds it (Glewlwyd, whose setup
    /// takes seconds, found its port taken beside a proxy test run). Random ports in 20000-32000
    /// (the tests' fixed redirect ports, 23600-23799, left out), each bound then closed; the
    /// kernel's choice if 64 in a row are taken.
    public static func freePort() throws -> Int {
        for _ in 0..<64 {
            let candidate = Int.random(in: 20000...32000)
            if (23600...23799).contains(candidate) { continue }
            if let port = try? bound(to: candidate) { return port }
        }
        return try bound(to: 0)
    }

    /// `port` (0: the kernel's choice) bound on 127.0.0.1 and let go at once.
    private static func bound(to port: Int) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw Failure(description: "bind: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
