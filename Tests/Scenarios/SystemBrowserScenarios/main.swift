// Scenarios for SystemBrowserProvider: a real WebAuthSession in a real gtk_main(), the browser
// launched by GIO (the scripted test browser the test registered), the redirect on a real
// libsoup listener. Each reports facts; SystemBrowserProviderTests asserts on them.
import Foundation
import ScenarioSupport
import SystemBrowserProvider
import WebviewHost
import WebviewHostGTK3

/// The session timeout of the "timeout" scenario (6 s, scaled for a slow machine).
let timeoutScenarioLimit = Patience.scaled(.seconds(6))

/// The browser's environment: its log file comes from the test (TEST_BROWSER_LOG).
@MainActor
func browser(_ extra: [String: String] = [:]) -> [String: String] {
    var environment = extra
    environment["TEST_BROWSER_LOG"] = ProcessInfo.processInfo.environment["TEST_BROWSER_LOG"] ?? "/dev/null"
    return environment
}

/// Opens the display as a GTK 3 app's registerBuiltInProviders() does: the browser starts with
/// the display's launch context.
@MainActor
func initializeGTK() -> UnsafeMutableRawPointer? {
    ToolkitIntegration.current = .gtk3
    return gtk_init_check(nil, nil) != 0 ? UnsafeMutableRawPointer(gdk_display_get_default()) : nil
}

// Started by the desktop with a custom-scheme URI: the app's second instance, not a scenario.
if CustomSchemeApp.isSecondInstance { CustomSchemeApp.runSecondInstance() }

ScenarioHost.main(SystemBrowserScenario.self, initializeToolkit: initializeGTK) { name in
    switch name {
    case .query: { _ in try await SignInRun(browserEnvironment: browser()).run() }
    case .formPost: { _ in try await SignInRun(formPost: true, browserEnvironment: browser()).run() }
    case .oauthError: { _ in
        try await SignInRun(
            echoed: [("error", "access_denied"), ("error_description", "<b>Nope</b> & \"no\""), ("state", "s-123")],
            browserEnvironment: browser()
        ).run()
    }
    case .malformedCallback: { _ in
        try await SignInRun(echoed: [("raw_query", "code=ab%E9&state=s-123")], browserEnvironment: browser()).run()
    }
    case .unreadableCallback: { _ in
        try await SignInRun(echoed: [("raw_query", "code=ab%zz&state=s-123")], browserEnvironment: browser()).run()
    }
    case .stateMismatch: { _ in
        try await SignInRun(echoed: [("code", "the-code"), ("state", "forged")], browserEnvironment: browser()).run()
    }
    case .wrongPathFirst: { _ in
        try await SignInRun(browserEnvironment: browser(["TEST_BROWSER_EXTRA_FIRST": "/favicon.ico,/wrong,/callback/extra"])).run()
    }
    case .afterCompletion: { _ in
        try await SignInRun(browserEnvironment: browser(["TEST_BROWSER_REPEAT": "1"])).run()
    }
    case .portZero: { _ in try await SignInRun(redirectURI: "http://127.0.0.1:0/callback", browserEnvironment: browser()).run() }
    case .ipv6: { _ in try await SignInRun(redirectURI: "http://[::1]/callback", browserEnvironment: browser()).run() }
    case .loopbackSpelling: { arguments in
        try await SignInRun(redirectURI: arguments.first ?? "http://127.0.0.1/callback", browserEnvironment: browser()).run()
    }
    case .fixedPort: { _ in
        try await SignInRun(redirectURI: "http://127.0.0.1:{port}/callback", browserEnvironment: browser()).run()
    }
    case .busyPort: { _ in
        let busy = try PortHolder()
        defer { busy.close() }
        var report = try await SignInRun(
            redirectURI: "http://127.0.0.1:\(busy.port)/callback", browserEnvironment: browser(), expectBrowser: false
        ).run()
        report[.busyPort] = busy.port
        return report
    }
    // Bounded: a launch GIO reports as started but that never reaches a browser ends by timeout.
    case .noBrowser: { _ in try await SignInRun(timeout: .seconds(10), browserEnvironment: browser(), expectBrowser: false).run() }
    // Long enough for the (stalling) test browser to have fetched the page on a loaded machine:
    // the test checks the load was reported before the timeout.
    case .timeout: { _ in
        try await SignInRun(timeout: timeoutScenarioLimit, browserEnvironment: browser(["TEST_BROWSER_STALL": "1"])).run()
    }
    case .cancel: { _ in
        try await SignInRun(cancelAfter: .seconds(1), browserEnvironment: browser(["TEST_BROWSER_STALL": "1"])).run()
    }
    // Real headless Chromium is the desktop's browser (ChromiumDesktop): the login page goes on
    // to the redirect by its own script, after a timer, as only a browser that runs it can.
    case .scriptRedirect: { _ in
        try await SignInRun(
            echoed: [("code", "the-code"), ("state", "s-123"), ("response_mode", "script")], expectBrowser: false
        ).run()
    }
    // Two sign-ins one after the other: the second launch finds the browser running.
    case .scriptRedirectTwice: { _ in
        let first = try await SignInRun(
            echoed: [("code", "first-code"), ("state", "s-123"), ("response_mode", "script")], expectBrowser: false
        ).run()
        var second = try await SignInRun(
            echoed: [("code", "second-code"), ("state", "s-123"), ("response_mode", "script")], expectBrowser: false
        ).run()
        second.merge(first.prefixed(by: "first."))
        return second
    }
    case .customPage: { _ in
        try await SignInRun(
            completion: .html(success: "<p>app says: done</p>", failure: "<p>app says: failed</p>"),
            browserEnvironment: browser()
        ).run()
    }
    case .redirectPage: { _ in
        try await SignInRun(
            completion: .redirect(
                success: URL(string: "http://127.0.0.1:9/never-followed-success")!,
                failure: URL(string: "http://127.0.0.1:9/never-followed-failure")!),
            browserEnvironment: browser()
        ).run()
    }
    // Custom scheme (run under dbus-run-session): the browser opens the redirect with `gio open`,
    // GIO starts this program again with it, and that instance hands it over D-Bus.
    case .customScheme: { _ in try await CustomSchemeApp.runFirstInstance() }
    case .customSchemeEdges: { _ in try await CustomSchemeApp.runEdges() }
    case .conformance: { _ in try await ConformanceRun.run() }
    case .outcomeMatrix: { _ in try await OutcomeMatrix.run() }
    case .hostileLoad: { _ in try await HostileLoopback.load() }
    case .concurrentCallbacks: { _ in try await HostileLoopback.concurrentCallbacks() }
    // A scheme handler at a path holding every character the Exec line must escape, installed
    // for real and started for real by `gio open`.
    case .installOddPath: { _ in try InstallOddPath.run() }
    case .installOddPathNoPercent: { _ in try InstallOddPath.run(percent: false) }
    // CustomSchemeRegistration.install under umask 000: the modes of what it wrote.
    case .installPermissions: { _ in
        umask(0)
        let file = try CustomSchemeRegistration.install(
            scheme: "com.example.perm", applicationID: "com.example.Perm", executable: "/bin/true", displayName: "Perm")
        func mode(_ path: String) -> Int {
            var info = stat()
            return stat(path, &info) == 0 ? Int(info.st_mode & 0o7777) : -1
        }
        var report = ScenarioReport()
        report[.entryMode] = mode(file.path)
        report[.applicationsMode] = mode(file.deletingLastPathComponent().path)
        report[.dataHomeMode] = mode(file.deletingLastPathComponent().deletingLastPathComponent().path)
        // Installing again replaces the entry: still 0600.
        try CustomSchemeRegistration.install(
            scheme: "com.example.perm", applicationID: "com.example.Perm", executable: "/bin/true", displayName: "Perm 2")
        report[.entryModeAfterReinstall] = mode(file.path)
        return report
    }
    // Another local process fetches the first hop before the browser does (reading the URL from
    // the browser's log): it works once, then 404; the session is cancelled after 3 s.
    case .firstHopOnce: { _ in
        let gate = NSTemporaryDirectory() + "first-hop-gate-\(getpid())"
        let log = ProcessInfo.processInfo.environment["TEST_BROWSER_LOG"] ?? ""
        // Cancelled once the browser, let through the gate, has fetched the used hop (it logs each
        // request when it has its answer).
        let browserFetched: @MainActor () -> Bool = {
            FileManager.default.fileExists(atPath: gate)
                && ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("\"event\": \"request\"")
        }
        return try await SignInRun(
            cancelWhen: browserFetched, browserEnvironment: browser(["TEST_BROWSER_WAIT_FOR": gate]),
            whilePending: { redirect in
                defer { _ = FileManager.default.createFile(atPath: gate, contents: nil) }
                var start: URL?
                for _ in 0..<200 where start == nil {
                    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                    for line in text.split(separator: "\n") {
                        guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                            event["event"] as? String == "launched"
                        else { continue }
                        start = (event["url"] as? String).flatMap(URL.init(string:))
                    }
                    if start == nil { usleep(50_000) }
                }
                var facts = ScenarioReport()
                guard let start, let port = start.port else {
                    facts[.firstHopFound] = false
                    return facts
                }
                let request = "GET \(start.path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
                let first = RawHTTP.exchange(port: port, Array(request.utf8))
                let head = first.text.components(separatedBy: "\r\n\r\n").first ?? ""
                let headers = head.split(separator: "\r\n").dropFirst().map { $0.lowercased() }
                let location = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }
                    .map { String($0.dropFirst("location:".count)).trimmingCharacters(in: .whitespaces) } ?? ""
                facts[.firstHopFound] = true
                facts[.firstHopPathLength] = start.path.count
                facts[.firstHopStatus] = first.status ?? 0
                facts[.firstHopLocation] = location
                facts[.firstHopNoStore] = headers.contains("cache-control: no-store")
                facts[.firstHopNoReferrer] = headers.contains("referrer-policy: no-referrer")
                facts[.firstHopSecondStatus] = RawHTTP.exchange(port: port, request) ?? 0
                facts[.guessedHopStatus] =
                    RawHTTP.exchange(port: port, "GET /\(String(repeating: "0", count: 32)) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n") ?? 0
                facts[.redirectPort] = redirect.port ?? 0
                return facts
            }
        ).run()
    }
    // The browser handler fails at once (the test's desktop entry decides how): the session must
    // end within seconds, not at its 30-second timeout.
    case .launchFails: { _ in
        try await SignInRun(timeout: .seconds(30), browserEnvironment: browser(), expectBrowser: false).run()
    }
    // The handler forwards the URL to a browser and exits 0; the browser arrives a second later.
    case .launchForwards: { _ in
        try await SignInRun(timeout: .seconds(30), browserEnvironment: browser(["TEST_BROWSER_DELAY_MS": "1000"])).run()
    }
    // The handler exits 0 without ever fetching the link: no didStartLoad; cancel still ends it.
    case .launchNeverFetches: { _ in
        try await SignInRun(
            timeout: .seconds(30), cancelAfter: .seconds(2), browserEnvironment: browser(["TEST_BROWSER_NEVER_FETCH": "1"])
        ).run()
    }
    // A local process sends malformed requests to other paths and requests naming another host
    // before the browser comes back; the browser waits for it (TEST_BROWSER_WAIT_FOR).
    case .hostileRequests: { _ in
        let gate = NSTemporaryDirectory() + "hostile-gate-\(getpid())"
        return try await SignInRun(
            browserEnvironment: browser(["TEST_BROWSER_WAIT_FOR": gate]),
            whilePending: { redirect in
                defer { _ = FileManager.default.createFile(atPath: gate, contents: nil) }
                let port = redirect.port ?? 0
                let own = "127.0.0.1:\(port)"
                var facts = ScenarioReport()
                facts[.malformedOtherPath] = RawHTTP.exchange(port: port, "GET /favicon.ico%zz HTTP/1.1\r\nHost: \(own)\r\n\r\n") ?? 0
                facts[.malformedOtherPathQuery] = RawHTTP.exchange(port: port, "GET /other?x=%zz HTTP/1.1\r\nHost: \(own)\r\n\r\n") ?? 0
                facts[.foreignHostCallback] = RawHTTP.exchange(port: port, "GET /callback?code=evil&state=s-123 HTTP/1.1\r\nHost: evil.example:\(port)\r\n\r\n") ?? 0
                facts[.foreignHostMalformedCallback] = RawHTTP.exchange(port: port, "GET /callback?code=%zz HTTP/1.1\r\nHost: evil.example\r\n\r\n") ?? 0
                facts[.noHostCallback] = RawHTTP.exchange(port: port, "GET /callback?code=evil&state=s-123 HTTP/1.0\r\n\r\n") ?? 0
                facts[.halfClosedPartialLineClosed] = {
                    // An unfinished request line, then the sender stops (shutdown of its side).
                    guard let fd = RawHTTP.connect(port: port) else { return false }
                    defer { close(fd) }
                    RawHTTP.send(fd, Array("GET /callback?code=half".utf8))
                    usleep(200_000)
                    shutdown(fd, Int32(SHUT_WR))
                    var byte: UInt8 = 0
                    // The listener closed it: end of stream, or a reset (it had unread bytes); not the 5 s limit.
                    let count = recv(fd, &byte, 1, 0)
                    return count == 0 || (count < 0 && errno == ECONNRESET)
                }()
                facts[.hugeHeaderAlone] = {
                    let request = "GET /other HTTP/1.1\r\nHost: \(own)\r\nX-Big: " + String(repeating: "a", count: 1 << 20) + "\r\n\r\n"
                    return RawHTTP.exchange(port: port, Array(request.utf8)).status ?? -1
                }()
                facts[.localhostNameCallback] = RawHTTP.exchange(port: port, "GET /callback?code=evil&state=s-123 HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n") ?? 0
                return facts
            }
        ).run()
    }
    }
}
