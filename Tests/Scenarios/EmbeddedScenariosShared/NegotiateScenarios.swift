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
    /// `<window|custom-view> <persistent|ephemeral> <base URL> <trust|no-trust|refusals> [basic|dialog]`
    /// (`refusals`: only what `allowNegotiate(to:)` refuses, no sign-in; an https base in a
    /// custom-view trusts the certificate file `NEGOTIATE_CERTIFICATE` names):
    /// signs in at `<base>/authorize`. `trust` names the base's origin with
    /// `EmbeddedWebviewProvider.allowNegotiate(to:)` before the first view (plain http needs it).
    /// `basic`: the page offers Basic too, and the scenario answers WebKit's `authenticate` as a
    /// person typing alice's password would (custom-view only: its handler is connected before
    /// the load). `dialog`: WebKit's own dialog is left to show; its texts and buttons inside the
    /// view are reported (`NEGOTIATE_SCREENSHOT=<path>` takes a screenshot of it), then the
    /// scenario answers as `basic` does.
    static let negotiate: Scenario = { arguments in
        let mode = arguments[0], ephemeral = arguments[1] == "ephemeral"
        let base = arguments[2], trust = arguments[3] == "trust"
        let password = arguments.count > 4 ? arguments[4] : nil
        var facts = ScenarioReport()
        if arguments[3] == "refusals" {
            // What allowNegotiate(to:) refuses: an origin that is not http(s) with a host, and any
            // call once the library has started WebKit's network process (a prewarmed window here).
            var refusals: [String] = []
            for origin in ["ftp://files.example.com", "https:///no-host", "file:///etc/krb5.conf"] {
                do throws(WebAuthError) {
                    try EmbeddedWebviewProvider.allowNegotiate(to: [URL(string: origin)!])
                    refusals.append("accepted \(origin)")
                } catch {
                    refusals.append("\(error.code): \(error.message)")
                }
            }
            EmbeddedWebviewProvider.prewarm()
            do throws(WebAuthError) {
                try EmbeddedWebviewProvider.allowNegotiate(to: [URL(string: base)!])
                refusals.append("accepted after the first window")
            } catch {
                refusals.append("\(error.code): \(error.message)")
            }
            EmbeddedWebviewProvider.releasePrewarmed()
            facts[.negotiateRefusals] = refusals
            facts[.negotiateTrustedURIs] = ProcessInfo.processInfo.environment["SOUP_GSSAPI_TRUSTED_URIS"] ?? ""
            return facts
        }
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
        let seen = DialogSeen()
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
                    // WebKit's dialog: made by the signal's default handler, after this one, inside the view.
                    let held = GObjectRef(retaining: request)
                    let toplevels = Toolkit.toplevels().count
                    Task { @MainActor in
                        let parts = { Toolkit.childrenWithInternal(of: view) }
                        _ = await ScenarioHost.wait(until: { !parts().flatMap { Probes.buttonLabels(in: $0) }.isEmpty })
                        seen.texts = parts().flatMap { Probes.labelTexts(in: $0) }
                        seen.buttons = parts().flatMap { Probes.buttonLabels(in: $0) }
                        seen.newToplevels = Toolkit.toplevels().count - toplevels
                        if let screenshot {
                            // For a person to look at (not the test's synchronisation): the dialog drawn.
                            await ScenarioHost.idle(.seconds(1))
                            _ = try? await ScriptRunner.run("import", ["-window", "root", screenshot], timeout: 30)
                        }
                        answer(held.pointer)
                    }
                    return false
                }
                answer(request)
                return true
            })
        }
        if mode == "custom-view" {
            let (window, view) = Probes.makeAppView()
            appWindow = window
            if base.hasPrefix("https:"), let file = ProcessInfo.processInfo.environment["NEGOTIATE_CERTIFICATE"] {
                // The page's self-signed certificate, trusted for this view's session only.
                let certificate = try withGError { error in g_tls_certificate_new_from_file(file, error) }!
                Toolkit.allowCertificate(certificate, host: "127.0.0.1", in: view)
                g_object_unref(certificate)
            }
            watch(view)
            parameters = WebviewParameters(webviewType: .embedded, customWebview: WebviewHandle(address: view))
        } else {
            appWindow = Probes.makeAppWindow()
            parameters = windowParameters(parent: appWindow, ephemeral: ephemeral)
        }
        // A short timeout: a 401 page left standing would show here as timedOut.
        parameters.timeout = Patience.scaled(.seconds(40))
        let run = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: authorization)
        var started: (any NSObjectProtocol)?
        if mode == "window", password != nil {
            // The window's view is made by the session: its handler goes on at the first load's start
            // (posted from load-changed, before any answer of the page can reach this process).
            seen.watch = watch
            started = NotificationCenter.default.addObserver(forName: .webAuthDidStartLoad, object: run.session, queue: nil) { note in
                let handle = note.userInfo?[WebAuthNotificationKey.webview] as? WebviewHandle
                MainActor.assumeIsolated { seen.attach(handle?.address) }
            }
        }
        defer { started.map { NotificationCenter.default.removeObserver($0) } }
        let result = try await run.outcome()
        facts.merge(run.facts(result))
        facts[.mode] = mode
        facts[.negotiateAsked] = asked.joined(separator: ",")
        if password == "dialog" {
            facts[.dialogTexts] = seen.texts
            facts[.dialogButtons] = seen.buttons
            facts[.negotiateDialogToplevels] = seen.newToplevels
        }
        facts[.callbackRequests] = callback.requests.count
        connections.disconnectAll()
        _ = appWindow
        return facts
    }
}

/// What WebKit's credentials dialog showed inside the view (`dialog`).
@MainActor
private final class DialogSeen {
    var texts: [String] = []
    var buttons: [String] = []
    /// Toplevel windows added while it showed (0: it is inside the view's window).
    var newToplevels = -1
    /// Connects the scenario's `authenticate` handler (once) to the session's view.
    var watch: ((UnsafeMutableRawPointer) -> Void)?
    private var attached = false

    func attach(_ view: UnsafeMutableRawPointer?) {
        guard !attached, let view, let watch else { return }
        attached = true
        watch(view)
    }
}
