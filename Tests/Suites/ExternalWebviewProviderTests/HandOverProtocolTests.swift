import ExternalWebviewProvider
import Foundation
import Synchronization
import Testing
import WebviewHost
import WebviewHostTestKit

/// A plugin asks the host to move the sign-in to the person's browser (`handOverToSystemBrowser`):
/// real plugin processes, a browser fake registered next to them. In ``ProtocolTests`` (serialized).
extension ProtocolTests {
    /// What one session through the test plugin with a browser fake ended with.
    struct HandOverRun {
        let result: Result<WebAuthResponse, WebAuthError>
        let records: [WebAuthEventRecorder.Record]
        let browser: FakeProviderLog
        /// The redirect URIs the builder was asked for, and the requests it made.
        let built: [(redirect: URL, request: URL)]
        /// The host's messages to the plugin, as it recorded them.
        let sent: [String]
        let survivors: [String]
        var names: [String] { records.map(\.shortName) }
    }

    /// One session through the plugin in `page`, with a browser fake (kind `.systemBrowser`,
    /// loopback, reaching its redirect) in the same isolated registry, and a request builder.
    func runHandOver(
        page: String, policy: SystemBrowserHandOverPolicy = .automatic, builder hasBuilder: Bool = true
    ) async throws -> HandOverRun {
        let temp = try TemporaryDirectory()
        let record = temp.url.appendingPathComponent("sent")
        let pids = try temp.subdirectory("pids")
        let plugin = behaviourProvider("autopilot", pids: pids, record: record)
        let browser = FakeWebviewProvider(
            id: "browser", kind: .systemBrowser, requiresDisplay: false,
            prepareRedirect: { url in
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
                components.port = 9123
                return components.url!
            },
            behavior: { presentation in
                presentation.reporter.didStartLoad(presentation.authorizationURL)
                DispatchQueue.main.async {
                    presentation.reporter.handleRedirect(FakeWebviewProvider.callback(for: presentation, query: "code=from-browser"))
                }
            })
        let built = Mutex<[(redirect: URL, request: URL)]>([])
        let builder: AuthorizationRequestBuilder = { redirectURI in
            let number = built.withLock { $0.count + 1 }
            let url = number == 1
                ? authorization(page, state: "s-1")
                : URL(string: "https://idp.example.test/browser-authorize?state=s-\(number)&redirect_uri=\(redirectURI.absoluteString)")!
            built.withLock { $0.append((redirectURI, url)) }
            return AuthorizationRequestURL(url, state: "s-\(number)")
        }
        let (result, records) = await WebviewProviderRegistry.withIsolatedRegistry {
            () async -> (Result<WebAuthResponse, WebAuthError>, [WebAuthEventRecorder.Record]) in
            WebviewProviderRegistry.register(plugin)
            WebviewProviderRegistry.register(browser)
            let session = WebAuthSession(
                redirectURI: redirect,
                parameters: WebviewParameters(webviewType: .provider(plugin.id), timeout: .seconds(60), systemBrowserHandOver: policy),
                environment: headless)
            let recorder = WebAuthEventRecorder(session: session)
            let result: Result<WebAuthResponse, WebAuthError>
            do throws(WebAuthError) {
                if hasBuilder {
                    result = .success(try await session.authenticate(request: builder))
                } else {
                    _ = try await session.prepare()
                    result = .success(try await session.start(authorizationURL: authorization(page, state: "s-1"), expectedState: "s-1"))
                }
            } catch {
                result = .failure(error)
            }
            // Notifications from other threads land on later turns; a late one would show here.
            try? await Task.sleep(for: .milliseconds(100))
            return (result, recorder.records)
        }
        let survivors = await survivors(in: pids)
        let sent = ((try? String(contentsOf: record, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        return HandOverRun(
            result: result, records: records, browser: browser.log, built: built.withLock { $0 }, sent: sent, survivors: survivors)
    }

    @Test("handOverToSystemBrowser: the browser gets the builder's new request, one outcome, events in order, the plugin dismissed")
    func handOver() async throws {
        let run = try await runHandOver(page: "handover")
        let response = try run.result.get()
        #expect(response.code == "from-browser")
        #expect(response.state == "s-2", "the browser's own request answered")
        #expect(response.callbackURL.port == 9123, "at the browser's redirect URI")
        #expect(run.built.count == 2, "one request for the plugin, one for the browser")
        #expect(run.built.last?.redirect.port == 9123, "the new request is for the redirect the browser prepared")
        #expect(run.browser.all == [.made, .prepared, .presented(run.built[1].request), .dismissed])
        #expect(run.names == ["didStartLoad", "willSwitchToSystemBrowser", "didStartLoad", "didComplete"])
        #expect(run.records[0].url == run.built[0].request, "the plugin's load, then the switch")
        #expect(run.records[2].url == run.built[1].request, "then the browser's own")
        #expect(run.sent == ["hello", "prepare", "present:true", "dismiss"], "the plugin is told it can, then dismissed")
        #expect(run.survivors == [], "the plugin process is ended and reaped")
    }

    @Test("A reason of the plugin's own, a page URL and a long detail: kept as a custom reason, the detail cut to one line")
    func customReason() async throws {
        let run = try await runHandOver(page: "handover-custom")
        #expect(try run.result.get().state == "s-2")
        let switched = run.records.first { $0.name == .webAuthWillSwitchToSystemBrowser }
        #expect(switched?.url == run.built[0].request, "the page the plugin named")
        let never = try await runHandOver(page: "handover-custom", policy: .never)
        let handOver = never.result.error?.handOver
        #expect(never.result.error?.code == .systemBrowserRequired)
        #expect(handOver?.reason == SystemBrowserHandOver.Reason("deviceCompliance"))
        #expect(handOver?.pageURL == never.built.first?.request)
        #expect(handOver?.detail.count == 500)
        #expect(handOver?.detail.hasPrefix("The device must be managed. ddd") == true)
        #expect(handOver?.detail.contains("\n") == false)
        #expect(never.sent == ["hello", "prepare", "present:false", "dismiss"], "with the policy never the plugin is told it cannot")
        #expect(never.browser.all.isEmpty, "the browser is not started")
        #expect(never.names == ["didStartLoad", "didFail"])
        #expect(never.survivors == [])
    }

    @Test("A hand-over the host cannot make (no request builder) ends the session with systemBrowserRequired, and the plugin is dismissed")
    func handOverWithoutBuilder() async throws {
        let run = try await runHandOver(page: "handover-bare", builder: false)
        #expect(run.result.error?.code == .systemBrowserRequired)
        #expect(run.result.error?.handOver?.reason == .webAuthn)
        #expect(run.result.error?.handOver?.pageURL == nil)
        #expect(run.sent == ["hello", "prepare", "present:false", "dismiss"])
        #expect(run.names == ["didStartLoad", "didFail"])
        #expect(run.browser.all.isEmpty)
        #expect(run.survivors == [])
    }

    @Test(
        "A malformed handOverToSystemBrowser is a protocol error, and nothing moves to the browser",
        arguments: [
            ("handover-long-reason", "\"reason\" is longer than 64 bytes"),
            ("handover-odd-reason", "\"reason\" is not a name of letters and digits"),
            ("handover-detail-number", "\"detail\" is not a string"),
            ("handover-bad-url", "\"url\" is not an absolute URL"),
            ("handover-truncated", "a line that is not JSON"),
        ])
    func malformedHandOver(_ page: String, _ says: String) async throws {
        let run = try await runHandOver(page: page)
        #expect(run.result.error?.code == .externalProviderProtocol, "\(run.result)")
        #expect(run.result.error?.message.contains(says) == true, "\(run.result.error?.message ?? "success")")
        #expect(run.names == ["didStartLoad", "didFail"])
        #expect(run.browser.all.isEmpty, "the browser is not started")
        #expect(run.sent.last == "dismiss")
        #expect(run.survivors == [])
    }
}
