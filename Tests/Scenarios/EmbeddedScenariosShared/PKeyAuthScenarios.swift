// Microsoft Entra ID's device challenge (PKeyAuth, [MS-PKAP] 3.2.5.1.2), as a provider sends it:
// its authorization endpoint answers 302 to `urn:http-auth:PKeyAuth?SubmitUrl=..&Context=..`.
// The view must never load it, and answer at SubmitUrl as a device without a registered key does;
// the provider's SubmitUrl then goes on to the redirect. A malformed or unsafe challenge ends the
// session at once with an error that says so.
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
    /// `<window|custom-view> <variant> [advertise]` (`advertise`: `advertisesDeviceChallenge`); variants: `good`,
    /// `401` (the challenge in a 401's WWW-Authenticate), `401-refused` (401 again after the answer), `no-submit`, `no-context`,
    /// `http-submit` (plain http to a host that is not loopback), `other-scheme`, `quote` (a
    /// Context that would break out of the header), `no-version`.
    static let pkeyAuth: Scenario = { arguments in
        let mode = arguments.first ?? "window"
        let variant = arguments.dropFirst().first ?? "good"
        let advertise = arguments.contains("advertise")
        let callback = try callbackListener()
        let idp = try TestServer()
        let submit = idp.url("/pkeyauth/submit")
        let context = "ctx-\(UInt32.random(in: 0...UInt32.max))"
        func challenge(_ parameters: [(String, String)]) -> String {
            var components = URLComponents()
            components.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
            return "urn:http-auth:PKeyAuth?" + (components.percentEncodedQuery ?? "")
        }
        let base = [("nonce", "n-1"), ("CertAuthorities", "OU%3d82dbaca4"), ("Version", "1.0")]
        let location: String = switch variant {
        case "no-submit": challenge([("Context", context)] + base)
        case "no-context": challenge([("SubmitUrl", submit)] + base)
        case "http-submit": challenge([("SubmitUrl", "http://pkeyauth.example.test/submit"), ("Context", context)] + base)
        case "other-scheme": challenge([("SubmitUrl", "file:///etc/passwd"), ("Context", context)] + base)
        case "quote": challenge([("SubmitUrl", submit), ("Context", "a\", Evil=\"b")] + base)
        case "no-version": challenge([("SubmitUrl", submit), ("Context", context), ("nonce", "n-1")])
        default: challenge([("SubmitUrl", submit), ("Context", context)] + base)
        }
        if variant.hasPrefix("401") {
            // The other form ([MS-PKAP] 3.2.5.1.1): a 401 whose WWW-Authenticate is the challenge,
            // answered at the same page; "401-refused" answers 401 again whatever comes.
            let header = "PKeyAuth Nonce=\"n-1\", CertAuthorities=\"OU=82dbaca4\", Version=\"1.0\", Context=\"\(context)\""
            idp.route("/authorize") { request in
                if variant == "401", request.authorization == "PKeyAuth Context=\"\(context)\", Version=\"1.0\"" {
                    return .redirect(callback.url("/callback") + "?code=after-pkeyauth&state=xyz")
                }
                var response = TestServer.Response.html(Pages.plain("Device authentication required"))
                response.status = 401
                response.headers = [("WWW-Authenticate", header)]
                return response
            }
        } else {
            idp.route("/authorize") { _ in .redirect(location) }
        }
        idp.route("/pkeyauth/submit") { request in
            // The provider checks the answer as Entra ID does, then goes on to the redirect.
            // (A challenge without Version is answered as 1.0, [MS-PKAP]'s only version.)
            guard request.authorization == "PKeyAuth Context=\"\(context)\", Version=\"1.0\"" else {
                return .html(Pages.plain("No device answer"))
            }
            return .redirect(callback.url("/callback") + "?code=after-pkeyauth&state=xyz")
        }
        var parameters: WebviewParameters
        var appWindow: UnsafeMutableRawPointer?
        var callerView: UnsafeMutableRawPointer?
        var callerUserAgent: String?
        if mode == "custom-view" {
            let (window, view) = Probes.makeAppView()
            appWindow = window
            callerView = view
            // The app's own user agent, which must come back after the session.
            webkit_settings_set_user_agent(webkit_web_view_get_settings(wvh_web_view(view)), "ExampleApp/2.1 (the app's own)")
            callerUserAgent = webkit_settings_get_user_agent(webkit_web_view_get_settings(wvh_web_view(view))).map { String(cString: $0) }
            parameters = WebviewParameters(webviewType: .embedded, customWebview: WebviewHandle(address: view))
        } else {
            appWindow = Probes.makeAppWindow()
            parameters = windowParameters(parent: appWindow)
        }
        // A short timeout: a challenge left unanswered would show here as timedOut.
        parameters.timeout = Patience.scaled(.seconds(30))
        parameters.advertisesDeviceChallenge = advertise
        let run = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize"))
        let result = try await run.outcome()
        var facts = run.facts(result)
        facts[.mode] = mode
        let submits = variant.hasPrefix("401")
            ? idp.requests(to: "/authorize").filter { $0.authorization != nil } : idp.requests(to: "/pkeyauth/submit")
        facts[.pkeyAuthSubmits] = submits.count
        facts[.pkeyAuthAnswer] = submits.first?.authorization ?? ""
        facts[.callbackRequests] = callback.requests.count
        facts[.userAgentAtAuthorize] = idp.requests(to: "/authorize").first?.userAgent ?? ""
        if let callerView {
            let after = webkit_settings_get_user_agent(webkit_web_view_get_settings(wvh_web_view(callerView))).map { String(cString: $0) }
            facts[.callerUserAgentKept] = after == callerUserAgent
        }
        _ = appWindow
        return facts
    }
}
