// Windows Integrated Authentication: an intranet sign-in page that asks `WWW-Authenticate:
// Negotiate` (Tests/Fixtures/Kerberos/negotiate_idp.py, started by the test with its own KDC),
// answered by WebKit's network process with the person's Kerberos ticket (KRB5CCNAME and
// KRB5_CONFIG come from the test, in this process's environment, which the network process
// inherits). When the view cannot answer, the session ends at once, saying why.
import CGLib
import Foundation
import GLibSupport
import ScenarioSupport
import WebviewHost
#if WEBKITGTK_6
import CWebKitGTK4
import EmbeddedWebviewProviderGTK4
#else
import CWebKitGTK3
import EmbeddedWebviewProviderGTK3
#endif

extension EmbeddedScenarios {
    /// `<window|custom-view> <persistent|ephemeral> <base URL> <trust|no-trust> [basic|dialog]`:
    /// signs in at `<base>/authorize`. `trust` names the base's origin with
    /// `EmbeddedWebviewProvider.allowNegotiate(to:)` before the first view (plain http needs it).
    /// `basic`: the page offers Basic too, and the scenario answers WebKit's `authenticate` as a
    /// person typing alice's password would (custom-view only: its handler is connected before
    /// the load). `dialog`: WebKit's own dialog is left to show; `NEGOTIATE_SCREENSHOT=<path>`
    /// takes a screenshot of it, then the scenario answers as `basic` does.
    static let negotiate: Scenario = { arguments in
        let mode = arguments[0], ephemeral = arguments[1] == "ephemeral"
        let base = arguments[2], trust = arguments[3] == "trust"
        let password = arguments.count > 4 ? arguments[4] : nil
        var facts = ScenarioReport()
        if trust {
            do throws(WebAuthError) {
                try EmbeddedWebviewProvider.allowNegotiate(to: [URL(string: base)!])
            } catch {
                facts[.outcome] = "allowNegotiate threw: \(error)"
                return facts
            }
        }
        facts[.negotiateTrustedURIs] = ProcessInfo.processInfo.environment["SOUP_GSSAPI_TRUSTED_URIS"] ?? ""
        let callback = try callbackListener()
        var authorization = "\(base)/authorize?state=xyz&redirect_uri="
            + (callback.url("/callback").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        if password != nil { authorization += "&offer=basic" }
        var parameters: WebviewParameters
        var appWindow: UnsafeMutableRawPointer?
        var asked: [String] = []
        let connections = SignalConnections()
        let screenshot = ProcessInfo.processInfo.environment["NEGOTIATE_SCREENSHOT"]
        // The person's answer: alice's password, through the request WebKit's dialog would answer.
        func answer(_ request: Toolkit.AuthenticationRequest) {
            let credential = webkit_credential_new("alice", "alice-pw", WEBKIT_CREDENTIAL_PERSISTENCE_NONE)
            webkit_authentication_request_authenticate(request, credential)
            webkit_credential_free(credential)
        }
        let watch = { (view: UnsafeMutableRawPointer) -> Void in
            _ = connections.connect(view, "authenticate", .pointerReturningBool { (request: Toolkit.AuthenticationRequest?) -> Bool in
                guard let request else { return false }
                asked.append("\(webkit_authentication_request_get_scheme(request).rawValue)")
                if password == "dialog" {
                    let held = GObjectRef(retaining: request)
                    Task { @MainActor in
                        // Only for a person to look at the dialog (not a test's synchronisation).
                        await ScenarioHost.idle(.seconds(2))
                        if let screenshot { _ = try? await ScriptRunner.run("import", ["-window", "root", screenshot], timeout: 30) }
                        answer(held.pointer)
                    }
                    return false
                }
                answer(request)
                return true
            })
        }
        if mode == "custom-view" {
            let window = Toolkit.makeWindow(width: 640, height: 480)
            let view = UnsafeMutableRawPointer(webkit_web_view_new()!)
            Toolkit.setChild(view, of: window)
            Toolkit.show(window)
            appWindow = window
            watch(view)
            parameters = WebviewParameters(webviewType: .embedded, customWebview: WebviewHandle(view))
        } else {
            appWindow = Probes.makeAppWindow()
            parameters = windowParameters(parent: appWindow, ephemeral: ephemeral)
        }
        // A short timeout: a 401 page left standing would show here as timedOut.
        parameters.timeout = Patience.scaled(.seconds(40))
        let run = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: authorization)
        if mode == "window", password != nil {
            // The window's view is made by the session; its handler goes on before the first answer.
            guard await ScenarioHost.wait(until: { run.webview != nil }), let view = run.webview else {
                facts[.outcome] = "no view was reported"
                return facts
            }
            watch(view)
        }
        let result = try await run.outcome()
        facts.merge(run.facts(result))
        facts[.mode] = mode
        facts[.negotiateAsked] = asked.joined(separator: ",")
        facts[.callbackRequests] = callback.requests.count
        connections.disconnectAll()
        _ = appWindow
        return facts
    }
}
