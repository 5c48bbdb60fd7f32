import Crypto
import Foundation
import ScenarioSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs `TokenCacheScenarios` (built beside the test bundle), a process of its own with its own
/// `PublicClientApplication`, and returns the JSON it reported.
enum TokenCacheScenario {
    /// The program, built beside the test bundle.
    static let program = ScenarioRunner.productsDirectory.appendingPathComponent(TokenCacheCommand.program!).path

    /// `Tests/Fixtures/TokenCache` in this checkout.
    static let scriptsDirectory = Checkout.fixture("TokenCache")

    static func run(
        _ command: TokenCacheCommand, _ words: [String] = [], environment: [String: String], timeout: TimeInterval = 90
    ) async throws -> [String: Any] {
        let arguments = [command.rawValue] + words
        var environment = environment
        environment["SCENARIO_TIMEOUT"] = String(Int(timeout) - 5)
        let output = try await ScriptRunner.run(program, arguments, environment: environment, timeout: timeout)
        guard let line = output.standardOutput.split(separator: "\n").last(where: { $0.hasPrefix("RESULT ") }),
            let object = try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any]
        else {
            throw GlewlwydError("TokenCacheScenarios \(arguments.joined(separator: " ")) reported nothing (exit \(output.status)):\n\(output.standardOutput)\n\(output.standardError.suffix(3000))")
        }
        return object
    }

    /// `run`, requiring success.
    static func succeed(
        _ command: TokenCacheCommand, _ words: [String] = [], environment: [String: String], timeout: TimeInterval = 90
    ) async throws -> [String: Any] {
        let result = try await run(command, words, environment: environment, timeout: timeout)
        if let error = result["error"] {
            throw GlewlwydError("TokenCacheScenarios \(([command.rawValue] + words).joined(separator: " ")) failed: \(error)")
        }
        return result
    }

    /// `Tests/Fixtures/TokenCache/msal_interop.py` with msal-python; its JSON.
    static func msalPython(_ arguments: [String], timeout: TimeInterval = 60) async throws -> [String: Any] {
        let output = try await ScriptRunner.run(
            "python3", [scriptsDirectory.appendingPathComponent("msal_interop.py").path] + arguments, timeout: timeout)
        guard output.status == 0, let object = try? JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any] else {
            throw GlewlwydError("msal_interop.py \(arguments.first ?? "") failed (exit \(output.status)); is msal installed (pip install msal)?\n\(output.standardError)")
        }
        return object
    }

    /// How the scenarios and msal_interop.py show a token: its SHA-256, first 8 bytes in hex.
    static func fingerprint(_ token: String?) -> String {
        guard let token else { return "" }
        return SHA256.hash(data: Data(token.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("signin-token-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// A private session bus with gnome-keyring-daemon on it, its login keyring unlocked without a
/// prompt (`Tests/Fixtures/TokenCache/keyring-session.sh` under `dbus-run-session`). Processes reach it
/// through ``environment``; the person's own keyring is never involved.
final class KeyringSession: Sendable {
    let directory: URL
    let busAddress: String
    private let child: CleanSpawn

    private init(directory: URL, busAddress: String, child: CleanSpawn) {
        self.directory = directory
        self.busAddress = busAddress
        self.child = child
    }

    /// What a process needs to use this keyring: the bus, and the runtime folder holding the
    /// store's writer lock.
    var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": busAddress, "XDG_RUNTIME_DIR": directory.appendingPathComponent("runtime").path]
    }

    /// - Parameter display: whether the session (and so the keyring's unlock prompt) may use the
    ///   test display; without one, an unlock prompt ends at once as dismissed.
    static func start(display: Bool = false) async throws -> KeyringSession {
        let directory = try TokenCacheScenario.temporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        if !display {
            environment["DISPLAY"] = nil
            environment["WAYLAND_DISPLAY"] = nil
        }
        let script = TokenCacheScenario.scriptsDirectory.appendingPathComponent("keyring-session.sh").path
        let child = try CleanSpawn(
            ["dbus-run-session", "--", "bash", script, directory.path], environment: environment,
            outputFiles: (directory.appendingPathComponent("session.out").path, directory.appendingPathComponent("session.err").path))
        let addressFile = directory.appendingPathComponent("bus-address")
        for _ in 0..<200 {
            if let address = try? String(contentsOf: addressFile, encoding: .utf8), !address.isEmpty {
                return KeyringSession(directory: directory, busAddress: address.trimmingCharacters(in: .whitespacesAndNewlines), child: child)
            }
            if let status = child.exitStatusIfEnded() {
                let log = (try? String(contentsOf: directory.appendingPathComponent("session.err"), encoding: .utf8)) ?? ""
                throw GlewlwydError("The private keyring session ended (exit \(status)) before it was ready; is gnome-keyring installed?\n\(log)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(child.pid, SIGKILL)
        _ = child.waitForExit()
        throw GlewlwydError("The private keyring session was not ready within 10 seconds.")
    }

    /// Ends the session: its script exits, dbus-run-session ends the bus and the daemon with it.
    func stop() async {
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("stop").path, contents: nil)
        var ended = false
        for _ in 0..<100 where !ended {
            ended = child.exitStatusIfEnded() != nil
            if !ended { try? await Task.sleep(for: .milliseconds(50)) }
        }
        if !ended {
            kill(child.pid, SIGKILL)
            _ = child.waitForExit()
        }
        // The keyring daemon ends with the bus, a moment later, and may still write its files.
        for _ in 0..<20 {
            try? FileManager.default.removeItem(at: directory)
            if !FileManager.default.fileExists(atPath: directory.path) { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Runs `body` with a fresh keyring session, stopped afterwards whatever happens.
    static func with<T>(display: Bool = false, _ body: (KeyringSession) async throws -> T) async throws -> T {
        let session = try await start(display: display)
        do {
            let value = try await body(session)
            await session.stop()
            return value
        } catch {
            await session.stop()
            throw error
        }
    }
}
