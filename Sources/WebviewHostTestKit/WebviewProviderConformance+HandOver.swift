import Foundation
import WebviewHost

/// The hand-over checks (``WebviewProviderConformance/handOverChecks``): the sign-in moves from the
/// provider to the person's browser.
extension WebviewProviderConformance.Probe {
    /// The provider asks for the browser; the browser fake then waits until the check has
    /// made the provider's old reporter speak (nothing may change), then redirects, or the
    /// check cancels while the browser shows.
    func handOver(cancelInBrowser: Bool) async {
        guard let handOverURL = fixture.handOverAuthorizationURL else { return }
        var parameters = parameters
        parameters.systemBrowserHandOver = .automatic
        parameters.systemBrowserRedirectURI = WebviewProviderConformance.handOverBrowserRedirectURI
        let session = WebAuthSession(redirectURI: fixture.redirectURI, parameters: parameters, environment: fixture.environment)
        let recorder = WebAuthEventRecorder(session: session)
        let built = BuiltRequests()
        let builder: AuthorizationRequestBuilder = { redirect in
            let count = built.append(redirect)
            if count == 1 { return AuthorizationRequestURL(handOverURL(redirect), state: nil) }
            var components = URLComponents(string: "https://browser.conformance.invalid/authorize")!
            components.queryItems = [
                .init(name: "redirect_uri", value: redirect.absoluteString), .init(name: "state", value: "conformance-browser"),
            ]
            return AuthorizationRequestURL(components.url!, state: "conformance-browser")
        }
        let running = Task { @MainActor () -> Result<WebAuthResponse, WebAuthError> in
            do throws(WebAuthError) {
                return .success(try await session.authenticate(request: builder))
            } catch {
                return .failure(error)
            }
        }
        let watchdog = Task { @MainActor in
            try await Task.sleep(for: self.fixture.patience * 2)
            session.cancel()
            self.fail("no outcome within \(self.fixture.patience * 2); the check cancelled the session")
        }
        defer { watchdog.cancel() }

        // The browser shows the new request.
        guard await waitFor({ self.browser.presented != nil || recorder.terminalCount > 0 }) else {
            fail("the provider did not hand the sign-in over within \(fixture.patience): \(recorder.shortNames)")
            session.cancel()
            _ = await running.value
            return
        }
        if let presented = browser.presented {
            let asked = built.all
            if asked.count != 2 {
                fail("the builder was asked for \(asked.count) requests, expected one for the provider and one for the browser")
            } else if asked[1].absoluteString != WebviewProviderConformance.handOverBrowserRedirectURI.absoluteString {
                fail("the browser's request was built for \(asked[1]), expected the browser's redirect URI")
            }
            if URLComponents(url: presented, resolvingAgainstBaseURL: false)?.host != "browser.conformance.invalid" {
                fail("the browser was presented \(presented), not the new request")
            }
            if recorder.terminalCount == 0 {
                // The provider is out of the session: its dismiss comes, and what it reports now changes nothing.
                _ = await waitFor { self.observer.dismissCount > 0 }
                if let old = observer.reporter {
                    let stale = fixture.redirectURI.absoluteString + "?code=stale&state=stale"
                    old.didStartLoad(handOverURL(fixture.redirectURI))
                    if let url = URL(string: stale) { old.handleRedirect(url) }
                    old.fail(WebAuthError(.network, "a late failure from the replaced provider"))
                    if old.handOverToSystemBrowser(SystemBrowserHandOver(reason: .webAuthn, detail: "again")) {
                        fail("the replaced provider's reporter handed over a second time")
                    }
                    if old.canHandOverToSystemBrowser { fail("the replaced provider's reporter still says it can hand over") }
                }
                try? await Task.sleep(for: .milliseconds(100))
                if recorder.terminalCount > 0 { fail("a report from the replaced provider ended the session: \(recorder.shortNames)") }
            }
        }
        if cancelInBrowser { session.cancel() } else { browser.finish() }
        let result = await running.value

        switch (result, cancelInBrowser) {
        case (.success(let response), false):
            if response.state != "conformance-browser" || response.code != "from-browser" {
                fail("the response is not the browser's: state \(response.state ?? "nil"), code \(response.code ?? "nil")")
            }
        case (.failure(let error), true) where error.code == .canceled: break
        case (.failure(let error), _): fail("expected \(cancelInBrowser ? "canceled" : "the browser's response"), got \(error)")
        case (.success, true): fail("expected canceled, got success")
        }
        await expectEnding(recorder, terminal: cancelInBrowser ? .webAuthDidFail : .webAuthDidComplete)
        let names = recorder.shortNames
        if names.first != "didStartLoad" { fail("the first notification is \(names.first ?? "none"), expected didStartLoad") }
        let switches = names.indices.filter { names[$0] == "willSwitchToSystemBrowser" }
        if switches.count != 1 {
            fail("expected one willSwitchToSystemBrowser, got \(names)")
        } else if let browserLoad = recorder.records.firstIndex(where: { $0.url == browser.presented }),
            browserLoad < switches[0]
        {
            fail("the browser's events came before willSwitchToSystemBrowser: \(names)")
        } else if !cancelInBrowser, !recorder.records.contains(where: { $0.name == .webAuthDidStartLoad && $0.url == browser.presented }) {
            fail("the browser's didStartLoad is missing: \(recorder.records)")
        }
        if observer.dismissCount != 1 { fail("the provider was dismissed \(observer.dismissCount) times, expected once") }
        if browser.log.dismissCount != 1 { fail("the browser was dismissed \(browser.log.dismissCount) times, expected once") }
        if browser.log.all.filter({ $0 == .made }).count != 1 { fail("the browser was started \(browser.log.all)") }
        await expectSlotFree()
    }
}
