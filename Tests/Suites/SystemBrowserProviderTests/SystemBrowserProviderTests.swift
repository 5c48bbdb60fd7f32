import Foundation
import ScenarioSupport
import Testing

/// Runs one SystemBrowserScenarios scenario with a temporary desktop whose default browser is
/// `browser`, on a private session bus (as on a desktop: GIO announces launches on it; without
/// one, GLib would autolaunch a bus that outlives the test).
func scenario(_ name: String, browser: TestBrowserDesktop.Browser = .registered, timeout: Duration = .seconds(60)) async throws -> ScenarioReport {
    let desktop = try TestBrowserDesktop(browser)
    defer { desktop.remove() }
    return try await ScenarioRunner.run(
        "SystemBrowserScenarios", name, environment: desktop.environment, timeout: timeout,
        launcher: ["dbus-run-session", "--"])
}

let successNotifications = ["WebAuthDidStartLoad", "WebAuthDidFinishLoad", "WebAuthDidComplete"]

/// Scenarios run one at a time: each starts a browser process and listeners of its own.
@Suite("System browser provider", .serialized)
struct SystemBrowserProviderTests {
    @Test("GET callback: code and state come back, the browser sees the success page, the port closes")
    func successByQuery() async throws {
        let report = try await scenario("query")
        #expect(report.string("outcome") == "success")
        #expect(report.string("code") == "the-code")
        #expect(report.string("state") == "s-123")
        #expect(report.strings("notifications") == successNotifications)
        #expect(report.bool("listenerRefusedAfterEnd") == true)
        #expect(report.bool("browserFinished") == true)
        #expect(report.int("browserFinalStatus") == 200)
        let body = try #require(report.string("browserFinalBody"))
        #expect(body.contains("Sign-in finished"))
        #expect(!body.contains("the-code"))
        // The kernel chose the port; the prepared redirect URI carries it, the requested one did not.
        #expect(report.string("requestedRedirectURI") == "http://127.0.0.1/callback")
        let port = try #require(report.int("listenerPort"))
        #expect(report.string("preparedRedirectURI") == "http://127.0.0.1:\(port)/callback")
        #expect(report.string("browserAuthorizationURL")?.contains("redirect_uri=http://127.0.0.1:\(port)/callback") == true)
        // The browser was handed the first hop on the listener, not the authorization URL.
        let launched = try #require(report.string("browserLaunchedWith"))
        #expect(launched.hasPrefix("http://127.0.0.1:\(port)/") && !launched.contains("redirect_uri"), "\(launched)")
        #expect(report.strings("browserRequests")?.first?.hasSuffix("-> 302") == true)
        // Started with the display's launch context (GTK 3's, from ToolkitIntegration.gtk3): the
        // browser got a startup-notification id, which GIO's plain launch context never gives.
        #expect(report.string("browserStartupID")?.isEmpty == false, "no DESKTOP_STARTUP_ID: not the display's launch context")
    }

    @Test("form_post callback: the POSTed code and state complete the session")
    func successByFormPost() async throws {
        let report = try await scenario("form-post")
        #expect(report.string("outcome") == "success")
        #expect(report.string("code") == "the-code")
        #expect(report.string("state") == "s-123")
        let requests = try #require(report.strings("browserRequests"))
        #expect(requests.last?.hasPrefix("POST 127.0.0.1:") == true)
        #expect(requests.last?.hasSuffix("/callback -> 200") == true)
        #expect(report.string("browserFinalBody")?.contains("Sign-in finished") == true)
        #expect(report.bool("listenerRefusedAfterEnd") == true)
    }

    @Test("OAuth error callback: .server error, the failure page shows the description HTML-escaped")
    func oauthError() async throws {
        let report = try await scenario("oauth-error")
        #expect(report.string("outcome") == "error")
        #expect(report.string("errorCode") == "server")
        #expect(report.string("serverErrorDescription") == "<b>Nope</b> & \"no\"")
        let body = try #require(report.string("browserFinalBody"))
        #expect(body.contains("Sign-in failed"))
        #expect(body.contains("&lt;b&gt;Nope&lt;/b&gt; &amp; &quot;no&quot;"))
        #expect(!body.contains("<b>Nope</b>"))
        #expect(report.strings("notifications")?.last == "WebAuthDidFail")
        #expect(report.bool("listenerRefusedAfterEnd") == true)
    }

    @Test("A callback libsoup cannot parse (a %zz escape, answered 400 before the provider sees it) ends the session at once")
    func unreadableCallback() async throws {
        let report = try await scenario("unreadable-callback")
        #expect(report.string("outcome") == "error")
        #expect(report.string("errorCode") == "invalidResponse")
        #expect(report.bool("listenerRefusedAfterEnd") == true)
    }

    /// `%E9` is well-formed syntax but not UTF-8, so libsoup passes it on and the host refuses it.
    @Test("A callback whose percent-encoding is not UTF-8: invalidResponse, and the browser is told sign-in failed")
    func malformedCallback() async throws {
        let report = try await scenario("malformed-callback")
        #expect(report.string("outcome") == "error")
        #expect(report.string("errorCode") == "invalidResponse")
        #expect(report.string("browserFinalBody")?.contains("Sign-in failed") == true)
        #expect(report.bool("listenerRefusedAfterEnd") == true)
    }

    @Test("State mismatch: stateMismatch, and the browser is told sign-in failed")
    func stateMismatch() async throws {
        let report = try await scenario("state-mismatch")
        #expect(report.string("errorCode") == "stateMismatch")
        #expect(report.string("browserFinalBody")?.contains("Sign-in failed") == true)
        #expect(report.string("browserFinalBody")?.contains("the-code") == false)
        #expect(report.bool("listenerRefusedAfterEnd") == true)
    }

    @Test("Favicon, a wrong path and a longer path get 404 and do not end the session; the right path does")
    func wrongPathThenRightPath() async throws {
        let report = try await scenario("wrong-path-first")
        #expect(report.string("outcome") == "success")
        let requests = try #require(report.strings("browserRequests"))
        // The first hop (302) and the login page come first.
        let listenerRequests = requests.dropFirst(2)
        #expect(listenerRequests.count == 4)
        #expect(listenerRequests.prefix(3).allSatisfy { $0.hasSuffix("-> 404") })
        #expect(listenerRequests.last?.hasSuffix("/callback?code=the-code&state=s-123 -> 200") == true)
        #expect(report.strings("notifications") == successNotifications)
    }

    @Test("A request after completion does not reach a listener, and the outcome stays the first one")
    func requestAfterCompletion() async throws {
        let report = try await scenario("after-completion")
        #expect(report.string("code") == "the-code")
        let requests = try #require(report.strings("browserRequests"))
        #expect(requests.count == 4)
        // Refused (or reset, if it was still in the accept backlog) when the listener had closed;
        // 410 "already ended" if it came between the outcome and the close. Never a success page.
        let late = try #require(requests.last)
        #expect(late.contains("-> error: ") || late.hasSuffix("-> 410"), "\(late)")
        #expect(report.strings("notifications")?.filter { $0 == "WebAuthDidComplete" }.count == 1)
    }

    @Test("IPv6 loopback: http://[::1]/callback binds ::1 and completes")
    func ipv6() async throws {
        let report = try await scenario("ipv6")
        #expect(report.string("outcome") == "success")
        let port = try #require(report.int("listenerPort"))
        #expect(report.string("preparedRedirectURI") == "http://[::1]:\(port)/callback")
        #expect(report.strings("browserRequests")?.last?.hasPrefix("GET [::1]:\(port)/callback") == true)
        #expect(report.bool("listenerRefusedAfterEnd") == true)
    }

    @Test("Fixed port: the redirect URI's own port is bound and returned unchanged")
    func fixedPort() async throws {
        let report = try await scenario("fixed-port")
        #expect(report.string("outcome") == "success")
        let requested = try #require(report.string("requestedRedirectURI"))
        #expect(report.string("preparedRedirectURI") == requested)
        #expect(requested.hasPrefix("http://127.0.0.1:") && !requested.hasPrefix("http://127.0.0.1/"))
        #expect(report.bool("listenerRefusedAfterEnd") == true)
    }

    @Test("Port 0 (http://127.0.0.1:0/callback): the prepared redirect URI and the authorization URL carry the bound port")
    func portZero() async throws {
        let report = try await scenario("port-zero")
        let port = try #require(report.int("listenerPort"))
        #expect(port != 0)
        #expect(report.string("requestedRedirectURI") == "http://127.0.0.1:0/callback")
        #expect(report.string("preparedRedirectURI") == "http://127.0.0.1:\(port)/callback")
        #expect(report.string("browserAuthorizationURL")?.contains("redirect_uri=http://127.0.0.1:\(port)/callback") == true)
        #expect(report.string("outcome") == "success", "\(report.string("errorMessage") ?? "")")
        #expect(report.string("callbackURL")?.hasPrefix("http://127.0.0.1:\(port)/callback?") == true)
        #expect(report.bool("listenerRefusedAfterEnd") == true)
    }

    @Test("Busy port: redirectListenerFailed that names the port, before any browser starts")
    func busyPort() async throws {
        let report = try await scenario("busy-port")
        let port = try #require(report.int("busyPort"))
        #expect(report.string("errorCode") == "redirectListenerFailed")
        #expect(report.string("errorMessage")?.contains("\(port)") == true)
        #expect(report.string("errorMessage")?.contains("in use") == true)
        #expect(report.strings("notifications") == ["WebAuthDidFail"])
    }

    @Test("No browser registered: the provider is unavailable and the session fails with providerUnavailable")
    func noBrowser() async throws {
        let report = try await scenario("no-browser", browser: .none)
        #expect(report.string("errorCode") == "providerUnavailable")
        #expect(report.string("errorMessage")?.contains("x-scheme-handler/https") == true)
    }

    @Test("No handler for the authorization URL's scheme: browserLaunchFailed, listener closed again")
    func noHandlerForURL() async throws {
        let report = try await scenario("no-browser", browser: .httpsOnly)
        #expect(report.string("errorCode") == "browserLaunchFailed")
        #expect(report.string("errorMessage")?.contains("default") == true)
        #expect(report.bool("listenerRefusedAfterEnd") == true)
        #expect(report.strings("notifications") == ["WebAuthDidFail"])
    }

    @Test("Timeout: a browser that never comes back ends the session with timedOut after the set time")
    func timeout() async throws {
        let report = try await scenario("timeout")
        #expect(report.string("errorCode") == "timedOut")
        let elapsed = try #require(report.double("elapsedSeconds"))
        let limit = try #require(report.double("timeoutSeconds"))
        #expect(elapsed >= limit && elapsed < limit + 10)
        #expect(report.bool("listenerRefusedAfterEnd") == true)
        #expect(report.strings("notifications") == ["WebAuthDidStartLoad", "WebAuthDidFinishLoad", "WebAuthDidFail"])
    }

    @Test("Programmatic cancel: canceled, listener closed")
    func cancel() async throws {
        let report = try await scenario("cancel")
        #expect(report.string("errorCode") == "canceled")
        let elapsed = try #require(report.double("elapsedSeconds"))
        #expect(elapsed >= 1 && elapsed < 10)
        #expect(report.bool("listenerRefusedAfterEnd") == true)
    }

    @Test("browserCompletion .html: the app's own page is served")
    func customPage() async throws {
        let report = try await scenario("custom-page")
        #expect(report.string("outcome") == "success")
        #expect(report.string("browserFinalBody") == "<p>app says: done</p>")
    }

    @Test("The provider conformance suite (WebviewHostTestKit) passes against the system browser and the test browser")
    func conformance() async throws {
        let report = try await scenario("conformance")
        #expect(report.strings("checks") == ["success", "cancel", "cancelBeforeStart", "taskCancellation", "cancelFromObserver", "timeout", "secondSession", "quietAfterEnd"])
        #expect(report.strings("failures") == [], "\(report.strings("failures") ?? [])")
        // The browser really ran: it followed the succeeding URL and fetched the pending page.
        let requests = try #require(report.strings("loginRequests"))
        #expect(requests.contains("/authorize"))
        #expect(requests.contains("/pending"))
    }

    @Test("browserCompletion .redirect: the browser is sent on to the app's page with 303")
    func redirectPage() async throws {
        let report = try await scenario("redirect-page")
        #expect(report.string("outcome") == "success")
        let requests = try #require(report.strings("browserRequests"))
        #expect(requests.count == 4)
        #expect(requests[2].hasSuffix("-> 303"))
        #expect(requests[3].hasPrefix("GET 127.0.0.1:9/never-followed-success"))
    }
}

/// Local processes other than the browser (issue 8): they can talk to the loopback listener,
/// but only the browser's own callback can end the sign-in.
@Suite("System browser: hostile local processes", .serialized)
struct HostileLoopbackTests {
    @Test("Malformed requests to other paths get 400 and requests naming another host get 421; the session goes on and succeeds")
    func malformedAndForeignHost() async throws {
        let report = try await scenario("hostile-requests")
        #expect(report.int("malformedOtherPath") == 400)
        #expect(report.int("malformedOtherPathQuery") == 400)
        #expect(report.int("foreignHostCallback") == 421)
        #expect(report.int("foreignHostMalformedCallback") == 400)
        #expect(report.int("noHostCallback") == 421)
        // The redirect URI says 127.0.0.1: "localhost" is another name for the listener.
        #expect(report.int("localhostNameCallback") == 421)
        // 1 MiB of headers: libsoup drops the connection (-1: no answer, or reset) or refuses it; never served.
        #expect(report.int("hugeHeaderAlone").map { $0 == -1 || (400..<500).contains($0) } == true)
        // A sender that stops in the middle of its request line is dropped, not spun on.
        #expect(report.bool("halfClosedPartialLineClosed") == true)
        #expect(report.string("outcome") == "success", "\(report.string("errorMessage") ?? "")")
        #expect(report.string("code") == "the-code")
        #expect(report.bool("listenerRefusedAfterEnd") == true)
    }

    @Test("1,000 connections, 400 held, slow senders, 1 MiB headers, 10 MiB bodies: the real callback completes; fds back to baseline, port closed")
    func underLoad() async throws {
        let report = try await scenario("hostile-load", timeout: .seconds(100))
        #expect(report.int("opened") == 1000)
        #expect(report.int("hugeHeaderStatus").map { $0 == -1 || (400..<500).contains($0) } == true)
        #expect(report.int("hugeBodyOtherPathStatus") == 404)
        #expect(report.int("hugeBodyCallbackStatus") == 415)
        #expect(report.int("burstAnswered") == 50)
        #expect(report.string("outcome") == "success", "\(report.string("errorMessage") ?? "")")
        #expect(report.string("code") == "the-code")
        #expect(report.bool("portClosedAfterOutcome") == true)
        #expect(report.int("heldClosedByListener") == 400)
        #expect((report.int("slowBytesSent") ?? 0) > 0)
        #expect(report.bool("listenerRefusedAfterEnd") == true)
        let baseline = try #require(report.int("fdBaseline"))
        #expect(report.int("fdAfter") == baseline)
        print("hostile load: huge header answered \(report.int("hugeHeaderStatus") ?? 0), fds \(baseline) -> \(report.int("fdAfter") ?? -1)")
    }

    @Test("Twenty valid callbacks at once: the first wins, the others get the already-ended page or none, one outcome")
    func concurrentCallbacks() async throws {
        let report = try await scenario("concurrent-callbacks")
        let answers = try #require(report.strings("callbackAnswers"))
        #expect(answers.count == 20)
        let winners = answers.filter { $0.hasSuffix(" 200 finished") }
        #expect(winners.count == 1, "\(answers)")
        #expect(answers.allSatisfy { $0.hasSuffix(" 200 finished") || $0.hasSuffix(" 410 already-ended") || $0.hasSuffix(" none other") }, "\(answers)")
        let code = try #require(report.string("code"))
        #expect(winners.first?.hasPrefix("\(code) ") == true)
        #expect(report.strings("notifications")?.filter { $0 == "WebAuthDidComplete" || $0 == "WebAuthDidFail" }.count == 1)
        #expect(report.bool("listenerRefusedAfterEnd") == true)
        print("concurrent callbacks: \(answers)")
    }
}

/// A browser handler GIO starts but that never shows the page (issue 8, point 6).
@Suite("System browser: handlers that fail to start", .serialized)
struct BrowserLaunchTests {
    @Test("A handler that exits 1 at once (Exec=false): browserLaunchFailed within seconds, with the status")
    func handlerExitsWithFailure() async throws {
        let report = try await scenario("launch-fails", browser: .command("false %u"), timeout: .seconds(45))
        #expect(report.string("errorCode") == "browserLaunchFailed")
        #expect(report.string("errorMessage")?.contains("status 1") == true, "\(report.string("errorMessage") ?? "")")
        #expect((report.double("elapsedSeconds") ?? 99) < 5)
        #expect(report.strings("notifications") == ["WebAuthDidFail"])
        #expect(report.bool("listenerRefusedAfterEnd") == true)
    }

    @Test("A handler whose interpreter is missing (#!/nonexistent/python): browserLaunchFailed within seconds")
    func handlerInterpreterMissing() async throws {
        let report = try await scenario(
            "launch-fails", browser: .script("#!/nonexistent/python\nprint('never')\n"), timeout: .seconds(45))
        #expect(report.string("errorCode") == "browserLaunchFailed")
        #expect((report.double("elapsedSeconds") ?? 99) < 5)
        #expect(report.strings("notifications") == ["WebAuthDidFail"])
        #expect(report.bool("listenerRefusedAfterEnd") == true)
    }

    @Test("A handler killed by a signal before the browser arrived: browserLaunchFailed naming the signal")
    func handlerKilled() async throws {
        let report = try await scenario("launch-fails", browser: .script("#!/bin/sh\nkill -KILL $$\n"), timeout: .seconds(45))
        #expect(report.string("errorCode") == "browserLaunchFailed")
        #expect(report.string("errorMessage")?.contains("signal 9") == true, "\(report.string("errorMessage") ?? "")")
        #expect((report.double("elapsedSeconds") ?? 99) < 5)
        #expect(report.strings("notifications") == ["WebAuthDidFail"])
    }

    @Test("A handler that forwards the URL to a browser and exits 0 at once: the session goes on and succeeds")
    func handlerForwardsAndExitsZero() async throws {
        let forwarder = """
            #!/bin/sh
            setsid python3 {browser} "$1" </dev/null >/dev/null 2>&1 &
            exit 0

            """
        let report = try await scenario("launch-forwards", browser: .script(forwarder), timeout: .seconds(45))
        #expect(report.string("outcome") == "success", "\(report.string("errorMessage") ?? "")")
        #expect(report.string("code") == "the-code")
        #expect(report.strings("notifications") == successNotifications)
        #expect(report.bool("browserFinished") == true)
    }

    @Test("A handler that exits 0 and never fetches the link: no didStartLoad, and cancel still ends the session")
    func handlerNeverFetches() async throws {
        let report = try await scenario("launch-never-fetches", timeout: .seconds(45))
        #expect(report.string("errorCode") == "canceled")
        #expect(report.strings("notifications") == ["WebAuthDidFail"])
        let elapsed = try #require(report.double("elapsedSeconds"))
        #expect(elapsed >= 2 && elapsed < 10)
        #expect(report.bool("listenerRefusedAfterEnd") == true)
    }

    @Test("The first hop: 302 to the authorization URL (no-store, no-referrer), 32 random hex digits, works once; didStartLoad once")
    func firstHopWorksOnce() async throws {
        let report = try await scenario("first-hop-once")
        #expect(report.bool("firstHopFound") == true)
        #expect(report.int("firstHopPathLength") == 33)
        #expect(report.int("firstHopStatus") == 302)
        let port = try #require(report.int("redirectPort"))
        #expect(report.string("firstHopLocation")?.contains("redirect_uri=http://127.0.0.1:\(port)/callback") == true)
        #expect(report.bool("firstHopNoStore") == true)
        #expect(report.bool("firstHopNoReferrer") == true)
        #expect(report.int("firstHopSecondStatus") == 404)
        #expect(report.int("guessedHopStatus") == 404)
        // The browser came second: its fetch of the used hop got 404, so the sign-in never went on.
        #expect(report.strings("browserRequests")?.first?.hasSuffix("-> 404") == true)
        #expect(report.string("errorCode") == "canceled")
        #expect(report.strings("notifications") == ["WebAuthDidStartLoad", "WebAuthDidFinishLoad", "WebAuthDidFail"])
    }
}

/// Every terminal outcome of a system-browser sign-in (issue 8): one outcome, the terminal event
/// last, the slot free, the listener's port closed, no descriptor left behind.
@Suite("System browser: terminal outcomes", .serialized)
struct TerminalOutcomeMatrixTests {
    static let expected: [String: String] = [
        "success": "success:the-code",
        "cancel-main": "canceled",
        "cancel-other-thread": "canceled",
        "task-cancellation": "canceled",
        "timeout": "timedOut",
        "browser-fails-to-start": "browserLaunchFailed",
        "duplicate-and-late-callbacks": "success:the-code",
        "state-mismatch": "stateMismatch",
        "oauth-error": "server",
    ]

    @Test("Each way to end: the expected outcome, one terminal event and it is last, slot free, port closed, descriptors back")
    func matrix() async throws {
        let report = try await scenario("outcome-matrix", timeout: .seconds(150))
        let lines = try #require(report.strings("rows"))
        let rows: [[String]] = lines.map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }
        let widths = [28, 19, 8, 5, 5, 5, 11, 8, 4]
        let header = ["case", "outcome", "terminal", "last", "quiet", "slot", "port closed", "fds back", "s"]
        var table = zip(header, widths).map { pad($0, $1) }.joined(separator: " | ") + "\n"
        for row in rows where row.count == 9 {
            table += zip(row, widths).map { pad($0, $1) }.joined(separator: " | ") + "\n"
        }
        print("System browser terminal outcomes (descriptor baseline \(report.int("fdBaseline") ?? -1)):\n" + table)
        #expect(Set(rows.map { $0[0] }) == Set(Self.expected.keys))
        for row in rows {
            try #require(row.count == 9, "\(row)")
            #expect(row[1] == Self.expected[row[0]], "\(row[0])")
            #expect(row[2] == "1", "\(row[0]): terminal events")
            #expect(row[3] == "true", "\(row[0]): terminal event last")
            #expect(row[4] == "true", "\(row[0]): nothing after the terminal event")
            #expect(row[5] == "true", "\(row[0]): slot free")
            #expect(row[6] == "true", "\(row[0]): port refuses connections")
            #expect(row[7] == "true", "\(row[0]): descriptors back to the baseline")
        }
        var seconds: [String: Double] = [:]
        for row in rows where row.count == 9 { seconds[row[0]] = Double(row[8]) ?? 99 }
        #expect((seconds["browser-fails-to-start"] ?? 99) < 5)
        #expect((seconds["timeout"] ?? 0) >= 2 && (seconds["timeout"] ?? 99) < 6)
    }
}
