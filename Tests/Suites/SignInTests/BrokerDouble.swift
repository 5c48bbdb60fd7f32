import Foundation
import ScenarioSupport
import Synchronization

/// `Tests/Fixtures/BrokerDouble/broker_double.py` (Debian's python3-gi) on a private session bus of its
/// own from `dbus-run-session`: a D-Bus double of Microsoft's identity broker that answers from a
/// scenario and reports every request it received.
final class BrokerDouble: Sendable {
    static let script = Checkout.fixture("BrokerDouble").appendingPathComponent("broker_double.py")
    /// How long a test waits for the double's next line before it fails (a loaded machine is slow).
    static let deadline: Duration = .seconds(60)

    /// One call the double received.
    struct Request: Sendable {
        let method: String
        let protocolVersion: String
        let correlationID: String
        /// The request JSON the library sent, re-serialized with sorted keys (for exact comparison).
        let json: String
        var object: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:] }
    }

    /// The bus address to give `MicrosoftIdentityBroker(busAddress:)`.
    let address: String
    private let process: CleanSpawn
    private let directory: URL

    /// Starts the double with `scenario` (see the script's documentation) and waits until it is on the bus.
    static func start(_ scenario: [String: Any] = [:]) async throws -> BrokerDouble {
        try await start(json: try JSONSerialization.data(withJSONObject: scenario))
    }

    /// ``start(_:)`` with the scenario as JSON. With `activating`, the bus can start a second
    /// double with that scenario on demand (D-Bus activation, as a real broker's service file
    /// does); give the first one `"absent": true` so that the name starts without an owner.
    static func start(json scenario: Data, activating: Data? = nil) async throws -> BrokerDouble {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("broker-double-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let scenarioFile = directory.appendingPathComponent("scenario.json")
        try scenario.write(to: scenarioFile)
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        var command = ["dbus-run-session"]
        if let activating {
            let services = directory.appendingPathComponent("services")
            try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
            let activatedScenario = directory.appendingPathComponent("activated.json")
            try activating.write(to: activatedScenario)
            try Data("""
                [D-BUS Service]
                Name=com.microsoft.identity.broker1
                Exec=/usr/bin/python3 \(script.path) \(activatedScenario.path)

                """.utf8).write(to: services.appendingPathComponent("com.microsoft.identity.broker1.service"))
            let configuration = directory.appendingPathComponent("bus.conf")
            try Data(PrivateBusConfiguration.text(listen: "unix:tmpdir=/tmp", serviceDirectories: [services.path]).utf8)
                .write(to: configuration)
            command.append("--config-file=\(configuration.path)")
        }
        let process = try CleanSpawn(
            command + ["--", "/usr/bin/python3", script.path, scenarioFile.path], environment: environment, processGroup: true)
        let waiter = LineWaiter()
        waiter.read(process.output)
        let ready: String
        do {
            ready = try await waiter.next { $0.hasPrefix("READY ") }
        } catch {
            kill(-process.pid, SIGTERM)
            _ = process.waitForExit()
            throw error
        }
        return BrokerDouble(address: String(ready.dropFirst(6)), process: process, directory: directory, lines: waiter)
    }

    private init(address: String, process: CleanSpawn, directory: URL, lines: LineWaiter) {
        self.address = address
        self.process = process
        self.directory = directory
        self.lines_ = lines
    }
    private let lines_: LineWaiter

    /// The next request for `method` not returned before (in the order received).
    func request(_ method: String) async throws -> Request {
        let line = try await lines_.next { $0.hasPrefix("REQUEST ") && Self.parse($0)?.method == method }
        return Self.parse(line)!
    }

    /// Every request received so far, in order.
    var requests: [Request] { lines_.seen.compactMap(Self.parse) }

    /// Ends the bus and the double, and waits for them.
    func stop() {
        kill(-process.pid, SIGTERM)
        _ = process.waitForExit()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func parse(_ line: String) -> Request? {
        guard line.hasPrefix("REQUEST "),
            let object = (try? JSONSerialization.jsonObject(with: Data(line.dropFirst(8).utf8))) as? [String: Any],
            let method = object["method"] as? String, let request = object["request"]
        else { return nil }
        let json = (try? JSONSerialization.data(withJSONObject: request, options: [.sortedKeys, .withoutEscapingSlashes]))
            .map { String(decoding: $0, as: UTF8.self) } ?? ""
        return Request(
            method: method, protocolVersion: object["protocolVersion"] as? String ?? "", correlationID: object["correlationId"] as? String ?? "",
            json: json)
    }
}
