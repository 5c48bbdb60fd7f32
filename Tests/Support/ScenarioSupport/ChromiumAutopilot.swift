public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A person at the keyboard of a ``ChromiumDesktop``'s Chromium: signs in on Glewlwyd's login
/// page (`Tests/Fixtures/Chromium/chromium-autopilot.py`) by clicking into the fields, typing the user
/// name and password key by key, clicking the login button, ticking the scopes and pressing
/// "Grant access" on a consent screen, and "Continue". It acts through input events of the
/// DevTools protocol (mouse and keys), never by calling the page's functions or by talking to
/// the server itself. Start it before the scenario (it waits for Chromium to come up), stop it
/// after:
///
///     let browser = try ChromiumDesktop()
///     defer { browser.remove() }
///     let autopilot = try ChromiumAutopilot(in: browser, username: "alice", password: "alice-password",
///                                           onlyOn: "127.0.0.1:\(glewlwydPort)")
///     defer { autopilot.stop() }
///     let report = try await ScenarioRunner.run(...)   // the scenario signs in through the desktop's browser
///     #expect(autopilot.steps.map(\.name).contains("login"), "\(autopilot.log)")
public final class ChromiumAutopilot: Sendable {
    /// One thing the autopilot did or saw, from its log.
    public struct Step: Sendable, Equatable {
        /// `attached` (to the browser), `page` (a page's URL changed), `login` (typed and clicked
        /// the login button), `consent-scope` (ticked a scope), `consent` ("Grant access"),
        /// `continue`, `retry` (a step cut short by a navigation), `no-browser` (none came up).
        public let name: String
        /// The page's URL (empty for `attached`).
        public let url: String
        /// For `login`: what the user-name field and the password field held before the click.
        public let typedUsername: String?
        public let typedPasswordLength: Int?
    }

    private let process: CleanSpawn
    private let logFile: URL
    private let errorFile: URL

    public static let script = ChromiumDesktop.scriptsDirectory.appendingPathComponent("chromium-autopilot.py")

    /// Starts the autopilot for `browser`'s Chromium (running or yet to be started).
    /// - Parameters:
    ///   - onlyOn: `host:port` of the only pages it acts on (the identity provider's), or `nil` for any.
    ///   - deadline: how long it keeps watching before it exits by itself.
    public init(
        in browser: ChromiumDesktop, username: String, password: String, onlyOn hostAndPort: String? = nil,
        deadline: Duration = .seconds(300)
    ) throws {
        let name = "autopilot-\(UUID().uuidString.prefix(8))"
        logFile = browser.folder.appendingPathComponent("\(name).log")
        errorFile = browser.folder.appendingPathComponent("\(name).err")
        var arguments = ["python3", Self.script.path, browser.profile.path, username, password]
        if let hostAndPort { arguments += ["--host-port", hostAndPort] }
        arguments += ["--deadline", String(deadline.components.seconds)]
        process = try CleanSpawn(
            arguments, environment: ProcessInfo.processInfo.environment,
            outputFiles: (logFile.path, errorFile.path), processGroup: true)
    }

    /// Everything it did so far, in order.
    public var steps: [Step] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let name = event["step"] as? String
            else { return nil }
            return Step(
                name: name, url: event["url"] as? String ?? "", typedUsername: event["typedUsername"] as? String,
                typedPasswordLength: event["typedPasswordLength"] as? Int)
        }
    }

    /// Waits until it has logged a step that `matches` (true), or until `timeout` has passed
    /// (false). Its log lags what Chromium does by a fraction of a second.
    public func waitForStep(timeout: Duration = .seconds(30), where matches: (Step) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if steps.contains(where: matches) { return true }
            if ContinuousClock.now >= deadline || process.hasEnded() { return steps.contains(where: matches) }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Its log and its standard error, for failure messages.
    public var log: String {
        let output = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return "autopilot steps:\n\(output)autopilot stderr:\n\(errors.suffix(3000))"
    }

    deinit { stop() }

    /// Ends it (its process group) and reaps it. Safe to call more than once.
    public func stop() {
        guard !process.hasEnded() else {
            _ = process.exitStatusIfEnded()
            return
        }
        kill(-process.pid, SIGTERM)
        _ = process.waitForExit()
    }
}
