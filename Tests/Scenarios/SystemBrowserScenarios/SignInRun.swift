import Foundation
import ScenarioSupport
import SystemBrowserProvider
import WebviewHost

/// One sign-in through the system-browser provider, as a scenario runs it.
struct SignInRun {
    /// The redirect URI the app asks for; `{port}` is replaced by a free port when present.
    var redirectURI = "http://127.0.0.1/callback"
    /// Parameters the login page sends back (code, state, error...).
    var echoed: [(String, String)] = [("code", "the-code"), ("state", "s-123")]
    var formPost = false
    var expectedState: String? = "s-123"
    var timeout: Duration? = nil
    var cancelAfter: Duration? = nil
    /// Cancels once this holds (checked on the main actor every 20 ms, from the start), or after
    /// the event deadline: for a cancel that must come after something happened, however slow
    /// the machine.
    var cancelWhen: (@MainActor () -> Bool)? = nil
    var completion: BrowserCompletion = .defaultPage
    /// Environment for the test browser (GIO starts it with this process's environment).
    var browserEnvironment: [String: String] = [:]
    /// Whether a browser is expected to run (its log is awaited, bounded).
    var expectBrowser = true
    /// Runs on a thread of its own once the redirect URI is prepared, while the session waits
    /// (a hostile local process); what it returns joins the report.
    var whilePending: (@Sendable (_ redirectURI: URL) -> ScenarioReport)? = nil

    @MainActor
    func run() async throws -> ScenarioReport {
        WebviewProviderRegistry.register(SystemBrowserProvider())
        for (key, value) in browserEnvironment { setenv(key, value, 1) }
        let login = try LoginServer()
        var report = ScenarioReport()
        var redirectText = redirectURI
        if redirectText.contains("{port}") {
            let free = try PortHolder(ipv6: redirectText.contains("[::1]"))
            free.close()
            redirectText = redirectText.replacingOccurrences(of: "{port}", with: String(free.port))
        }
        report[.requestedRedirectURI] = redirectText
        if let timeout {
            report[.timeoutSeconds] = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        }
        let session = WebAuthSession(
            redirectURI: URL(string: redirectText)!,
            parameters: .init(webviewType: .authenticationSession, timeout: timeout, browserCompletion: completion))
        var notifications: [String] = []
        let observer = NotificationCenter.default.addObserver(forName: nil, object: session, queue: nil) { note in
            let name = note.name.rawValue.replacingOccurrences(of: "Notification", with: "")
            MainActor.assumeIsolated { notifications.append(name) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        if let cancelAfter {
            Task { @MainActor in
                try? await Task.sleep(for: cancelAfter)
                session.cancel()
            }
        }
        if let cancelWhen {
            Task { @MainActor in
                _ = await ScenarioHost.wait(upTo: Patience.event) { cancelWhen() }
                session.cancel()
            }
        }
        let started = ContinuousClock.now
        var preparedURL: URL?
        var pending: Task<ScenarioReport, Never>?
        do {
            let prepared = try await session.prepare()
            preparedURL = prepared
            report[.preparedRedirectURI] = prepared.absoluteString
            if let whilePending {
                pending = Task.detached { whilePending(prepared) }
            }
            var parameters = echoed
            if formPost { parameters.append(("response_mode", "form_post")) }
            let url = login.authorizationURL(redirectURI: prepared, parameters: parameters)
            let response = try await session.start(authorizationURL: url, expectedState: expectedState)
            report[.outcome] = "success"
            report[.code] = response.code ?? ""
            report[.state] = response.state ?? ""
            report[.callbackURL] = response.callbackURL.absoluteString
        } catch {
            report[.outcome] = "error"
            report[.errorCode] = error.code.name
            report[.errorMessage] = error.message
            if let serverError = error.serverError {
                report[.serverError] = serverError.error
                report[.serverErrorDescription] = serverError.errorDescription ?? ""
            }
        }
        let elapsed = ContinuousClock.now - started
        if let pending { report.merge(await pending.value) }
        report[.elapsedSeconds] = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        // Right after the outcome: the host dismissed the provider (the listener closed) before
        // the caller resumed. One yield later, is the port closed?
        await Task.yield()
        if let preparedURL, let components = URLComponents(url: preparedURL, resolvingAgainstBaseURL: true),
            let host = components.host, let port = components.port
        {
            report[.listenerPort] = port
            report[.listenerRefusedAfterEnd] =
                connectionRefused(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port)
        }
        // Let late reports arrive, then take the notifications seen.
        await ScenarioHost.idle(.milliseconds(300))
        report[.notifications] = notifications
        report[.loginRequests] = login.requests
        if expectBrowser, let log = browserEnvironment["TEST_BROWSER_LOG"] {
            await addBrowserFacts(from: log, to: &report)
        }
        login.close()
        return report
    }

    /// Waits (at most 15 s) for the test browser to finish and reports what it did.
    @MainActor
    private func addBrowserFacts(from path: String, to report: inout ScenarioReport) async {
        var events: [[String: Any]] = []
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            events = text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            if events.contains(where: { $0["event"] as? String == "done" }) { break }
            await ScenarioHost.idle(.milliseconds(100))
        }
        report[.browserFinished] = events.contains { $0["event"] as? String == "done" }
        report[.browserLaunchedWith] = events.first { $0["event"] as? String == "launched" }?["url"] as? String ?? ""
        report[.browserStartupID] =
            events.first { $0["event"] as? String == "launched" }?["startup_id"] as? String ?? ""
        // Where the first hop sent the browser: the authorization URL.
        report[.browserAuthorizationURL] =
            events.first { $0["event"] as? String == "request" }?["location"] as? String ?? ""
        // "METHOD path?query -> status" (or "-> error: ...") for every request, in order.
        report[.browserRequests] = events.filter { $0["event"] as? String == "request" }.map { event in
            let url = URLComponents(string: event["url"] as? String ?? "")
            let target = (url?.percentEncodedPath ?? "") + (url?.percentEncodedQuery.map { "?" + $0 } ?? "")
            let result = (event["status"] as? Int).map(String.init) ?? "error: \(event["error"] as? String ?? "?")"
            return "\(event["method"] as? String ?? "?") \(url?.host ?? ""):\(url?.port ?? 0)\(target) -> \(result)"
        }
        if let final = events.last(where: { $0["event"] as? String == "final" }) {
            report[.browserFinalStatus] = final["status"] as? Int ?? 0
            report[.browserFinalBody] = final["body"] as? String ?? ""
            report[.browserFinalContentLanguage] = final["content_language"] as? String ?? ""
            report[.browserFinalURL] = final["url"] as? String ?? ""
        }
    }
}
