// A broker's single-sign-on cookie in the embedded view (issue 32, part 3), as the provider's page
// sees it: `WebviewParameters.signInCookies` for 127.0.0.1 reach the authorization page on that
// host before its first load, never another host (`localhost` on the same server), never a
// later session, and never the cookie file; a caller's view gets them only when the app allows it.
import CGLib
import Foundation
import ScenarioSupport
import WebviewHost
#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif

extension EmbeddedScenarios {
    /// `<window|ephemeral|custom-view|custom-view-allowed> [bad]`; `bad` gives a cookie whose
    /// value cannot be sent (a `;`).
    static let signInCookies: Scenario = { arguments in
        let mode = arguments.first ?? "window"
        let bad = arguments.dropFirst().first == "bad"
        let callback = try callbackListener()
        let idp = try TestServer()
        let secret = "prt-\(UInt64.random(in: 0...UInt64.max))"
        let cookie = SignInCookie(name: "x-ms-RefreshTokenCredential", value: bad ? "a;b" : secret, host: "127.0.0.1", isSecure: false)
        // The page sets a cookie of its own that expires (so WebKit writes it to the cookie file),
        // then moves on by itself to another host of the same server, which redirects to the app.
        let elsewhere = idp.url("/elsewhere").replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let onwards = "setTimeout(() => { location.href = '\(elsewhere)' }, 50)"
        idp.route("/authorize") { _ in
            var response = TestServer.Response.html(Pages.scripted("Signing in", onwards))
            response.headers = [("Set-Cookie", "marker=kept; Max-Age=3600; Path=/; HttpOnly")]
            return response
        }
        idp.route("/elsewhere") { _ in .redirect(callback.url("/callback") + "?code=with-cookie&state=xyz") }

        var parameters: WebviewParameters
        var appWindow: UnsafeMutableRawPointer?
        if mode.hasPrefix("custom-view") {
            let (window, view) = Probes.makeAppView()
            appWindow = window
            parameters = WebviewParameters(webviewType: .embedded, customWebview: WebviewHandle(address: view))
            parameters.signInCookiesInCustomWebview = mode == "custom-view-allowed"
        } else {
            appWindow = Probes.makeAppWindow()
            parameters = windowParameters(parent: appWindow, ephemeral: mode == "ephemeral")
        }
        parameters.timeout = Patience.scaled(.seconds(40))
        var later = parameters
        parameters.signInCookies = [cookie]

        let run = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize"))
        var facts = run.facts(try await run.outcome())
        facts[.mode] = mode
        facts[.cookieAtAuthorize] = idp.requests(to: "/authorize").last?.cookie ?? ""
        facts[.cookieElsewhere] = idp.requests(to: "/elsewhere").last?.cookie ?? ""
        facts[.signInCookieValue] = secret
        if bad { return facts }

        if mode == "window" {
            // The page's own cookie reaches the file first; then the file is read for the sign-in cookie.
            let folder = "\(String(cString: g_get_user_data_dir()))/\(ProcessInfo.processInfo.processName)/webview-host"
            func cookieFiles() -> Data {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                return names.filter { $0.hasPrefix("cookies.sqlite") }.reduce(into: Data()) {
                    $0.append((try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + $1))) ?? Data())
                }
            }
            // No signal says WebKit wrote its file: read it until the page's cookie is there.
            let deadline = ContinuousClock.now + Patience.scaled(.seconds(20))
            var written = false
            while !written, ContinuousClock.now < deadline {
                written = cookieFiles().range(of: Data("marker".utf8)) != nil
                if !written { try await Task.sleep(for: .milliseconds(50)) }
            }
            facts[.signInCookieOnDisk] = written ? (cookieFiles().range(of: Data(secret.utf8)) != nil ? "yes" : "no") : "the page's cookie never reached the file"
        }

        // A later sign-in in the same store, without sign-in cookies: the page's cookie is still
        // there, the sign-in cookie is not.
        later.signInCookies = []
        let second = SessionRun(redirectURI: callback.url("/callback"), parameters: later, authorizationURL: idp.url("/authorize"))
        try facts.merge(second.facts(await second.outcome(), prefix: "later."))
        facts[.cookieLater] = idp.requests(to: "/authorize").last?.cookie ?? ""
        _ = appWindow
        return facts
    }
}
