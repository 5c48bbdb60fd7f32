import Foundation
import ScenarioSupport
import Testing
import TestTraits
import WebviewHost

/// Runs one SystemBrowserScenarios scenario with a temporary desktop whose default browser is
/// `browser`, on a private session bus (as on a desktop: GIO announces launches on it; without
/// one, GLib would autolaunch a bus that outlives the test).
func scenario(
    _ name: SystemBrowserScenario, arguments: [String] = [], browser: TestBrowserDesktop.Browser = .registered,
    timeout: Duration = .seconds(60), environment: [String: String] = [:]
) async throws -> ScenarioReport {
    let desktop = try TestBrowserDesktop(browser)
    defer { desktop.remove() }
    return try await ScenarioRunner.run(
        name, arguments: arguments, environment: desktop.environment.merging(environment) { $1 }, timeout: timeout,
        launcher: ["dbus-run-session", "--"])
}

let successNotifications = ["WebAuthDidStartLoad", "WebAuthDidFinishLoad", "WebAuthDidComplete"]

/// Scenarios run one at a time: each starts a browser process and listeners of its own.
@Suite("System browser provider", .serialized, .desktop)
struct SystemBrowserProviderTests {
    @Test("GET callback: code and state come back, the browser sees the success page, the port closes")
    func successByQuery() async throws {
        let report = try await scenario(.query)
        #expect(report[.outcome] == "success")
        #expect(report[.code] == "the-code")
        #expect(report[.state] == "s-123")
        #expect(report[.notifications] == successNotifications)
        #expect(report[.listenerRefusedAfterEnd] == true)
        #expect(report[.browserFinished] == true)
        #expect(report[.browserFinalStatus] == 200)
        let body = try #require(report[.browserFinalBody])
        #expect(body.contains("Sign-in finished"))
        #expect(!body.contains("the-code"))
        // The kernel chose the port; the prepared redirect URI carries it, the requested one did not.
        #expect(report[.requestedRedirectURI] == "http://127.0.0.1/callback")
        let port = try #require(report[.listenerPort])
        #expect(report[.preparedRedirectURI] == "http://127.0.0.1:\(port)/callback")
        #expect(report[.browserAuthorizationURL]?.contains("redirect_uri=http://127.0.0.1:\(port)/callback") == true)
        // The browser was handed the first hop on the listener, not the authorization URL.
        let launched = try #require(report[.browserLaunchedWith])
        #expect(launched.hasPrefix("http://127.0.0.1:\(port)/") && !launched.contains("redirect_uri"), "\(launched)")
        #expect(report[.browserRequests]?.first?.hasSuffix("-> 302") == true)
        // Started with the display's launch context (GTK 3's, from ToolkitIntegration.gtk3): the
        // browser got a startup-notification id, which GIO's plain launch context never gives.
        #expect(report[.browserStartupID]?.isEmpty == false, "no DESKTOP_STARTUP_ID: not the display's launch context")
    }

    @Test("form_post callback: the POSTed code and state complete the session")
    func successByFormPost() async throws {
        let report = try await scenario(.formPost)
        #expect(report[.outcome] == "success")
        #expect(report[.code] == "the-code")
        #expect(report[.state] == "s-123")
        let requests = try #require(report[.browserRequests])
        #expect(requests.last?.hasPrefix("POST 127.0.0.1:") == true)
        #expect(requests.last?.hasSuffix("/callback -> 200") == true)
        #expect(report[.browserFinalBody]?.contains("Sign-in finished") == true)
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    @Test("OAuth error callback: .server error, the failure page shows the description HTML-escaped")
    func oauthError() async throws {
        let report = try await scenario(.oauthError)
        #expect(report[.outcome] == "error")
        #expect(report[.errorCode] == "server")
        #expect(report[.serverErrorDescription] == "<b>Nope</b> & \"no\"")
        let body = try #require(report[.browserFinalBody])
        #expect(body.contains("Sign-in failed"))
        #expect(body.contains("&lt;b&gt;Nope&lt;/b&gt; &amp; &quot;no&quot;"))
        #expect(!body.contains("<b>Nope</b>"))
        #expect(report[.notifications]?.last == "WebAuthDidFail")
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    @Test("A callback libsoup cannot parse (a %zz escape, answered 400 before the provider sees it) ends the session at once")
    func unreadableCallback() async throws {
        let report = try await scenario(.unreadableCallback)
        #expect(report[.outcome] == "error")
        #expect(report[.errorCode] == "invalidResponse")
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    /// `%E9` is well-formed syntax but not UTF-8, so libsoup passes it on and the host refuses it.
    @Test("A callback whose percent-encoding is not UTF-8: invalidResponse, and the browser is told sign-in failed")
    func malformedCallback() async throws {
        let report = try await scenario(.malformedCallback)
        #expect(report[.outcome] == "error")
        #expect(report[.errorCode] == "invalidResponse")
        #expect(report[.browserFinalBody]?.contains("Sign-in failed") == true)
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    @Test("State mismatch: stateMismatch, and the browser is told sign-in failed")
    func stateMismatch() async throws {
        let report = try await scenario(.stateMismatch)
        #expect(report[.errorCode] == "stateMismatch")
        #expect(report[.browserFinalBody]?.contains("Sign-in failed") == true)
        #expect(report[.browserFinalBody]?.contains("the-code") == false)
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    @Test("Favicon, a wrong path and a longer path get 404 and do not end the session; the right path does")
    func wrongPathThenRightPath() async throws {
        let report = try await scenario(.wrongPathFirst)
        #expect(report[.outcome] == "success")
        let requests = try #require(report[.browserRequests])
        // The first hop (302) and the login page come first.
        let listenerRequests = requests.dropFirst(2)
        #expect(listenerRequests.count == 4)
        #expect(listenerRequests.prefix(3).allSatisfy { $0.hasSuffix("-> 404") })
        #expect(listenerRequests.last?.hasSuffix("/callback?code=the-code&state=s-123 -> 200") == true)
        #expect(report[.notifications] == successNotifications)
    }

    @Test("A request after completion does not reach a listener, and the outcome stays the first one")
    func requestAfterCompletion() async throws {
        let report = try await scenario(.afterCompletion)
        #expect(report[.code] == "the-code")
        let requests = try #require(report[.browserRequests])
        #expect(requests.count == 4)
        // Refused (or reset, if it was still in the accept backlog) when the listener had closed;
        // 410 "already ended" if it came between the outcome and the close. Never a success page.
        let late = try #require(requests.last)
        #expect(late.contains("-> error: ") || late.hasSuffix("-> 410"), "\(late)")
        #expect(report[.notifications]?.filter { $0 == "WebAuthDidComplete" }.count == 1)
    }

    @Test("IPv6 loopback: http://[::1]/callback binds ::1 and completes")
    func ipv6() async throws {
        let report = try await scenario(.ipv6)
        #expect(report[.outcome] == "success")
        let port = try #require(report[.listenerPort])
        #expect(report[.preparedRedirectURI] == "http://[::1]:\(port)/callback")
        #expect(report[.browserRequests]?.last?.hasPrefix("GET [::1]:\(port)/callback") == true)
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    /// Issue 35: one loopback rule. Every spelling the configuration accepts as a loopback
    /// redirect URI is one the browser provider binds and completes on: another address of
    /// 127.0.0.0/8, `::1` written out in full, `localhost` in capitals. The browser writes an
    /// IPv6 host in its short form (`[::1]`), and the listener answers it.
    @Test("Each loopback spelling the configuration accepts signs in through the browser", arguments: [
        ("http://127.0.0.2/callback", "127.0.0.2"),
        ("http://127.255.10.1:0/callback", "127.255.10.1"),
        ("http://[0:0:0:0:0:0:0:1]/callback", "[::1]"),
        ("http://[0000::0001]/callback", "[::1]"),
        ("http://LOCALHOST/callback", "localhost"),
    ])
    func loopbackSpellings(_ redirect: String, _ browserHost: String) async throws {
        let report = try await scenario(.loopbackSpelling, arguments: [redirect])
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        let port = try #require(report[.listenerPort])
        let prepared = try #require(report[.preparedRedirectURI])
        // The app's own spelling is kept (the provider compares redirect_uri as registered); only the port is added.
        let written = redirect.replacingOccurrences(of: ":0/", with: "/").replacingOccurrences(of: "/callback", with: ":\(port)/callback")
        #expect(prepared == written)
        #expect(report[.browserRequests]?.last?.hasPrefix("GET \(browserHost):\(port)/callback") == true, "\(report[.browserRequests] ?? [])")
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    @Test("Fixed port: the redirect URI's own port is bound and returned unchanged")
    func fixedPort() async throws {
        let report = try await scenario(.fixedPort)
        #expect(report[.outcome] == "success")
        let requested = try #require(report[.requestedRedirectURI])
        #expect(report[.preparedRedirectURI] == requested)
        #expect(requested.hasPrefix("http://127.0.0.1:") && !requested.hasPrefix("http://127.0.0.1/"))
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    @Test("Port 0 (http://127.0.0.1:0/callback): the prepared redirect URI and the authorization URL carry the bound port")
    func portZero() async throws {
        let report = try await scenario(.portZero)
        let port = try #require(report[.listenerPort])
        #expect(port != 0)
        #expect(report[.requestedRedirectURI] == "http://127.0.0.1:0/callback")
        #expect(report[.preparedRedirectURI] == "http://127.0.0.1:\(port)/callback")
        #expect(report[.browserAuthorizationURL]?.contains("redirect_uri=http://127.0.0.1:\(port)/callback") == true)
        #expect(report[.outcome] == "success", "\(report[.errorMessage] ?? "")")
        #expect(report[.callbackURL]?.hasPrefix("http://127.0.0.1:\(port)/callback?") == true)
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    @Test("Busy port: redirectListenerFailed that names the port, before any browser starts")
    func busyPort() async throws {
        let report = try await scenario(.busyPort)
        let port = try #require(report[.busyPort])
        #expect(report[.errorCode] == "redirectListenerFailed")
        #expect(report[.errorMessage]?.contains("\(port)") == true)
        #expect(report[.errorMessage]?.contains("in use") == true)
        #expect(report[.notifications] == ["WebAuthDidFail"])
    }

    @Test("No browser registered: the provider is unavailable and the session fails with providerUnavailable")
    func noBrowser() async throws {
        let report = try await scenario(.noBrowser, browser: .none)
        #expect(report[.errorCode] == "providerUnavailable")
        #expect(report[.errorMessage]?.contains("x-scheme-handler/https") == true)
    }

    @Test("No handler for the authorization URL's scheme: browserLaunchFailed, listener closed again")
    func noHandlerForURL() async throws {
        let report = try await scenario(.noBrowser, browser: .httpsOnly)
        #expect(report[.errorCode] == "browserLaunchFailed")
        #expect(report[.errorMessage]?.contains("default") == true)
        #expect(report[.listenerRefusedAfterEnd] == true)
        #expect(report[.notifications] == ["WebAuthDidFail"])
    }

    @Test("Timeout: a browser that never comes back ends the session with timedOut after the set time")
    func timeout() async throws {
        let report = try await scenario(.timeout)
        #expect(report[.errorCode] == "timedOut")
        let elapsed = try #require(report[.elapsedSeconds])
        let limit = try #require(report[.timeoutSeconds])
        #expect(elapsed >= limit && elapsed < limit + 10)
        #expect(report[.listenerRefusedAfterEnd] == true)
        #expect(report[.notifications] == ["WebAuthDidStartLoad", "WebAuthDidFinishLoad", "WebAuthDidFail"])
    }

    @Test("Programmatic cancel: canceled, listener closed")
    func cancel() async throws {
        let report = try await scenario(.cancel)
        #expect(report[.errorCode] == "canceled")
        let elapsed = try #require(report[.elapsedSeconds])
        #expect(elapsed >= 1 && elapsed < 10)
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    @Test("browserCompletion .html: the app's own page is served")
    func customPage() async throws {
        let report = try await scenario(.customPage)
        #expect(report[.outcome] == "success")
        #expect(report[.browserFinalBody] == "<p>app says: done</p>")
    }

    @Test("The provider conformance suite (WebviewHostTestKit) passes against the system browser and the test browser")
    func conformance() async throws {
        let report = try await scenario(.conformance)
        #expect(report[.checks] == ["success", "cancel", "cancelBeforeStart", "taskCancellation", "cancelFromObserver", "timeout", "secondSession", "quietAfterEnd"])
        #expect(report[.failures] == [], "\(report[.failures] ?? [])")
        // The browser really ran: it followed the succeeding URL and fetched the pending page.
        let requests = try #require(report[.loginRequests])
        #expect(requests.contains("/authorize"))
        #expect(requests.contains("/pending"))
    }

    @Test("browserCompletion .redirect: the browser is sent on to the app's page with 303")
    func redirectPage() async throws {
        let report = try await scenario(.redirectPage)
        #expect(report[.outcome] == "success")
        let requests = try #require(report[.browserRequests])
        #expect(requests.count == 4)
        #expect(requests[2].hasSuffix("-> 303"))
        #expect(requests[3].hasPrefix("GET 127.0.0.1:9/never-followed-success"))
    }
}

/// Local processes other than the browser (issue 8): they can talk to the loopback listener,
/// but only the browser's own callback can end the sign-in.
@Suite("System browser: hostile local processes", .serialized, .desktop)
struct HostileLoopbackTests {
    @Test("Malformed requests to other paths get 400 and requests naming another host get 421; the session goes on and succeeds")
    func malformedAndForeignHost() async throws {
        let report = try await scenario(.hostileRequests)
        #expect(report[.malformedOtherPath] == 400)
        #expect(report[.malformedOtherPathQuery] == 400)
        #expect(report[.foreignHostCallback] == 421)
        #expect(report[.foreignHostMalformedCallback] == 400)
        #expect(report[.noHostCallback] == 421)
        // The redirect URI says 127.0.0.1: "localhost" is another name for the listener.
        #expect(report[.localhostNameCallback] == 421)
        // 1 MiB of headers: libsoup drops the connection (-1: no answer, or reset) or refuses it; never served.
        #expect(report[.hugeHeaderAlone].map { $0 == -1 || (400..<500).contains($0) } == true)
        // A sender that stops in the middle of its request line is dropped, not spun on.
        #expect(report[.halfClosedPartialLineClosed] == true)
        #expect(report[.outcome] == "success", "\(report[.errorMessage] ?? "")")
        #expect(report[.code] == "the-code")
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    @Test("1,000 connections, 400 held, slow senders, 1 MiB headers, 10 MiB bodies: the real callback completes; fds back to baseline, port closed")
    func underLoad() async throws {
        let report = try await scenario(.hostileLoad, timeout: .seconds(100))
        #expect(report[.opened] == 1000)
        #expect(report[.hugeHeaderStatus].map { $0 == -1 || (400..<500).contains($0) } == true)
        #expect(report[.hugeBodyOtherPathStatus] == 404)
        #expect(report[.hugeBodyCallbackStatus] == 415)
        #expect(report[.burstAnswered] == 50)
        #expect(report[.outcome] == "success", "\(report[.errorMessage] ?? "")")
        #expect(report[.code] == "the-code")
        #expect(report[.portClosedAfterOutcome] == true)
        #expect(report[.heldClosedByListener] == 400)
        #expect((report[.slowBytesSent] ?? 0) > 0)
        #expect(report[.listenerRefusedAfterEnd] == true)
        let baseline = try #require(report[.fdBaseline])
        // Nothing leaked: no more descriptors than before. One fewer is a descriptor of the
        // process's own that was open at the baseline and closed since (seen once in a full run).
        #expect((report[.fdAfter] ?? Int.max) <= baseline, "\(report[.fdAfter] ?? -1) descriptors after, \(baseline) before")
        print("hostile load: huge header answered \(report[.hugeHeaderStatus] ?? 0), fds \(baseline) -> \(report[.fdAfter] ?? -1)")
    }

    @Test("Twenty valid callbacks at once: the first wins, the others get the already-ended page or none, one outcome")
    func concurrentCallbacks() async throws {
        let report = try await scenario(.concurrentCallbacks)
        let answers = try #require(report[.callbackAnswers])
        #expect(answers.count == 20)
        let winners = answers.filter { $0.hasSuffix(" 200 finished") }
        #expect(winners.count == 1, "\(answers)")
        #expect(answers.allSatisfy { $0.hasSuffix(" 200 finished") || $0.hasSuffix(" 410 already-ended") || $0.hasSuffix(" none other") }, "\(answers)")
        let code = try #require(report[.code])
        #expect(winners.first?.hasPrefix("\(code) ") == true)
        #expect(report[.notifications]?.filter { $0 == "WebAuthDidComplete" || $0 == "WebAuthDidFail" }.count == 1)
        #expect(report[.listenerRefusedAfterEnd] == true)
        print("concurrent callbacks: \(answers)")
    }
}

/// A browser handler GIO starts but that never shows the page (issue 8, point 6).
@Suite("System browser: handlers that fail to start", .serialized, .desktop)
struct BrowserLaunchTests {
    @Test("A handler that exits 1 at once (Exec=false): browserLaunchFailed within seconds, with the status")
    func handlerExitsWithFailure() async throws {
        let report = try await scenario(.launchFails, browser: .command("false %u"), timeout: .seconds(45))
        #expect(report[.errorCode] == "browserLaunchFailed")
        #expect(report[.errorMessage]?.contains("status 1") == true, "\(report[.errorMessage] ?? "")")
        #expect((report[.elapsedSeconds] ?? 99) < 5)
        #expect(report[.notifications] == ["WebAuthDidFail"])
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    @Test("A handler whose interpreter is missing (#!/nonexistent/python): browserLaunchFailed within seconds")
    func handlerInterpreterMissing() async throws {
        let report = try await scenario(
            .launchFails, browser: .script("#!/nonexistent/python\nprint('never')\n"), timeout: .seconds(45))
        #expect(report[.errorCode] == "browserLaunchFailed")
        #expect((report[.elapsedSeconds] ?? 99) < 5)
        #expect(report[.notifications] == ["WebAuthDidFail"])
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    @Test("A handler killed by a signal before the browser arrived: browserLaunchFailed naming the signal")
    func handlerKilled() async throws {
        let report = try await scenario(.launchFails, browser: .script("#!/bin/sh\nkill -KILL $$\n"), timeout: .seconds(45))
        #expect(report[.errorCode] == "browserLaunchFailed")
        #expect(report[.errorMessage]?.contains("signal 9") == true, "\(report[.errorMessage] ?? "")")
        #expect((report[.elapsedSeconds] ?? 99) < 5)
        #expect(report[.notifications] == ["WebAuthDidFail"])
    }

    @Test("A handler that forwards the URL to a browser and exits 0 at once: the session goes on and succeeds")
    func handlerForwardsAndExitsZero() async throws {
        let forwarder = """
            #!/bin/sh
            setsid python3 {browser} "$1" </dev/null >/dev/null 2>&1 &
            exit 0

            """
        let report = try await scenario(.launchForwards, browser: .script(forwarder), timeout: .seconds(45))
        #expect(report[.outcome] == "success", "\(report[.errorMessage] ?? "")")
        #expect(report[.code] == "the-code")
        #expect(report[.notifications] == successNotifications)
        #expect(report[.browserFinished] == true)
    }

    @Test("A handler that exits 0 and never fetches the link: no didStartLoad, and cancel still ends the session")
    func handlerNeverFetches() async throws {
        let report = try await scenario(.launchNeverFetches, timeout: .seconds(45))
        #expect(report[.errorCode] == "canceled")
        #expect(report[.notifications] == ["WebAuthDidFail"])
        let elapsed = try #require(report[.elapsedSeconds])
        #expect(elapsed >= 2 && elapsed < 10)
        #expect(report[.listenerRefusedAfterEnd] == true)
    }

    @Test("The first hop: 302 to the authorization URL (no-store, no-referrer), 32 random hex digits, works once; didStartLoad once")
    func firstHopWorksOnce() async throws {
        let report = try await scenario(.firstHopOnce)
        #expect(report[.firstHopFound] == true)
        #expect(report[.firstHopPathLength] == 33)
        #expect(report[.firstHopStatus] == 302)
        let port = try #require(report[.redirectPort])
        #expect(report[.firstHopLocation]?.contains("redirect_uri=http://127.0.0.1:\(port)/callback") == true)
        #expect(report[.firstHopNoStore] == true)
        #expect(report[.firstHopNoReferrer] == true)
        #expect(report[.firstHopSecondStatus] == 404)
        #expect(report[.guessedHopStatus] == 404)
        // The browser came second: its fetch of the used hop got 404, so the sign-in never went on.
        #expect(report[.browserRequests]?.first?.hasSuffix("-> 404") == true)
        #expect(report[.errorCode] == "canceled")
        #expect(report[.notifications] == ["WebAuthDidStartLoad", "WebAuthDidFinishLoad", "WebAuthDidFail"])
    }
}

/// Every terminal outcome of a system-browser sign-in (issue 8): one outcome, the terminal event
/// last, the slot free, the listener's port closed, no descriptor left behind.
@Suite("System browser: terminal outcomes", .serialized, .desktop)
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
        let report = try await scenario(.outcomeMatrix, timeout: .seconds(150))
        let lines = try #require(report[.rows])
        let rows: [[String]] = lines.map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }
        let widths = [28, 19, 8, 5, 5, 5, 11, 8, 4, 10]
        let header = ["case", "outcome", "terminal", "last", "quiet", "slot", "port closed", "fds back", "s", "s after exit"]
        var table = zip(header, widths).map { pad($0, $1) }.joined(separator: " | ") + "\n"
        for row in rows where row.count == 10 {
            table += zip(row, widths).map { pad($0, $1) }.joined(separator: " | ") + "\n"
        }
        print("System browser terminal outcomes (descriptor baseline \(report[.fdBaseline] ?? -1)):\n" + table)
        #expect(Set(rows.map { $0[0] }) == Set(Self.expected.keys))
        for row in rows {
            try #require(row.count == 10, "\(row)")
            #expect(row[1] == Self.expected[row[0]], "\(row[0])")
            #expect(row[2] == "1", "\(row[0]): terminal events")
            #expect(row[3] == "true", "\(row[0]): terminal event last")
            #expect(row[4] == "true", "\(row[0]): nothing after the terminal event")
            #expect(row[5] == "true", "\(row[0]): slot free")
            #expect(row[6] == "true", "\(row[0]): port refuses connections")
            #expect(row[7] == "true", "\(row[0]): descriptors back to the baseline")
        }
        var seconds: [String: Double] = [:], afterExit: [String: Double] = [:]
        for row in rows where row.count == 10 {
            seconds[row[0]] = Double(row[8]) ?? 99
            afterExit[row[0]] = Double(row[9])
        }
        // A browser that exits with a failure ends the session at once: measured from its exit (a
        // loaded machine may take seconds to start it, which is not the session's wait), with
        // the margin a busy machine needs to run the main loop; its 30 s timeout is far off.
        let failedExit = try #require(afterExit["browser-fails-to-start"], "the test browser wrote when it exited")
        #expect(failedExit >= 0 && failedExit < Patience.scaled(.seconds(2)).seconds, "\(failedExit) s after the browser exited")
        #expect((seconds["browser-fails-to-start"] ?? 99) < 15, "long before the case's 30 s timeout")
        #expect((seconds["timeout"] ?? 0) >= 2 && (seconds["timeout"] ?? 99) < 2 + Patience.scaled(.seconds(4)).seconds)
    }
}

/// Issue 26: the page the person's browser shows after the redirect is in that browser's
/// language (its `Accept-Language`), not the app's (`LANGUAGE` here says Ukrainian), with `lang`,
/// `dir` and `Content-Language`; a language the library has no catalog for gets English.
@Suite("The browser's completion page in the browser's language", .serialized, .desktop)
struct BrowserCompletionLanguageTests {
    @Test(arguments: [
        ("fr-CH, fr;q=0.9, en;q=0.8", "fr", "ltr"),
        ("ar-EG, ar;q=0.9", "ar", "rtl"),
        ("ja, de;q=0.5", "de", "ltr"),
        ("ja", "en", "ltr"),
        ("en-GB, fr;q=0.5", "en", "ltr"),
    ])
    func thePageFollowsAcceptLanguage(_ header: String, _ language: String, _ direction: String) async throws {
        let report = try await scenario(
            .query, environment: ["TEST_BROWSER_ACCEPT_LANGUAGE": header, "LANGUAGE": "uk", "LC_ALL": "C.UTF-8"])
        #expect(report[.outcome] == "success")
        #expect(report[.browserFinalStatus] == 200)
        #expect(report[.browserFinalContentLanguage] == language)
        let body = try #require(report[.browserFinalBody])
        #expect(body.contains("<html lang=\"\(language)\" dir=\"\(direction)\">"), "\(body)")
        let english = "You are signed in. You can close this tab and return to the app."
        let shown = ShownText.html("browser page", english, languages: [language])
        #expect(body.contains(shown), "\(body)")
        #expect((shown == english) == (language == "en"), "translated unless English: \(shown)")
        #expect(!body.contains("the-code"))
    }
}

extension Duration {
    /// The duration in seconds.
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
