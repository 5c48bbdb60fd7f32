// End-to-end sign-ins with PublicClientApplication against a real Glewlwyd server, through the
// built-in providers in a real gtk_main(): the embedded WebKitGTK view (its own window, or the
// app's view) driven by page JavaScript reached from the notifications, and the person's
// browser (a scripted browser registered as the desktop's default) landing on the loopback
// listener. Each scenario reports what it saw; SignInTests asserts.
import BuiltInWebviewProvidersGTK3
import CGLib
import CWebKitGTK3
import Foundation
import GLibSupport
import ScenarioSupport
import SignIn
import SystemBrowserProvider
import WebviewHost

WebviewProviderRegistry.registerBuiltInProviders()

ScenarioHost.main(SignInScenario.self, initializeToolkit: { gtk_init_check(nil, nil) != 0 ? UnsafeMutableRawPointer(gdk_display_get_default()) : nil }) { name in
    switch name {
    // arguments: client id, then the passwords to type in turn (comma-separated).
    case .embeddedWindow: { arguments in
        let passwords = arguments.dropFirst().first.map { $0.split(separator: ",").map(String.init) } ?? ["alice-password"]
        let driver = PageDriver(script: autopilotScript(username: "alice", passwords: passwords))
        return await signIn(
            clientID: arguments.first ?? "webviewhost-tests", redirect: "http://127.0.0.1:23685/embedded-callback",
            webview: WebviewParameters(webviewType: .embedded, timeout: .seconds(60)), driver: driver)
    }
    case .embeddedCustomView: { arguments in
        let window = gtk_window_new(GTK_WINDOW_TOPLEVEL)!
        gtk_window_set_default_size(wvh_window(window), 800, 700)
        let view = webkit_web_view_new()!
        gtk_container_add(wvh_container(window), view)
        gtk_widget_show_all(window)
        let driver = PageDriver(script: autopilotScript(username: "alice", passwords: ["alice-password"]))
        var report = await signIn(
            clientID: arguments.first ?? "webviewhost-tests", redirect: "http://127.0.0.1:23685/embedded-callback",
            webview: WebviewParameters(customWebview: WebviewHandle(address: view), timeout: .seconds(60)), driver: driver)
        report[.viewStillInWindow] = gtk_widget_get_parent(view) == UnsafeMutablePointer<GtkWidget>(OpaquePointer(window))
        return report
    }
    // The person's browser: whatever the desktop's default http handler is (the test registers
    // a scripted one); then a silent renewal with the refresh token.
    // SIGNIN_PARENT_WINDOW=1: the app's window (shown) is the parent the portal gets.
    case .systemBrowser: { arguments in
        let driver = PageDriver(script: nil)
        var parameters = WebviewParameters(webviewType: .authenticationSession, timeout: .seconds(60))
        if environment["SIGNIN_PARENT_WINDOW"] == "1" {
            let window = gtk_window_new(GTK_WINDOW_TOPLEVEL)!
            gtk_window_set_title(wvh_window(window), "Sandboxed app")
            gtk_widget_show_all(window)
            parameters.parentWindow = WindowHandle(address: window)
        }
        return await signIn(
            clientID: arguments.first ?? "webviewhost-tests", redirect: "http://127.0.0.1:23682/callback",
            webview: parameters, driver: driver, silentAfterwards: true)
    }
    // Registering a custom scheme (arguments: the scheme, the application id): where the
    // desktop reads it from, or the error that says what to add.
    case .schemeRegistration: { arguments in
        var facts = ScenarioReport()
        do throws(WebAuthError) {
            let file = try CustomSchemeRegistration.install(
                scheme: arguments[0], applicationID: arguments[1], executable: "run-test", displayName: "Sandbox test")
            facts[.outcome] = "success"
            facts[.message] = file.path
        } catch {
            facts[.outcome] = "\(error.code)"
            facts[.message] = error.message
        }
        return facts
    }
    // Sign in, sign out, sign in again (issue 28). arguments: where ("window", "view", "browser"),
    // how far ("identity", "app"), the client id, and a variant for the logout page ("forge": a
    // forged state comes back; "cancel": cancelled on the page; "timeout": its time runs out).
    case .signOut: { arguments in
        await signOutScenario(where: arguments[0], reach: arguments[1], clientID: arguments[2], variant: arguments.count > 3 ? arguments[3] : "")
    }
    // Two people one after the other in the library's window (issue 28). arguments: the client
    // id, the MSAL-format cache file.
    case .twoAccounts: { arguments in
        await twoAccountsScenario(clientID: arguments[0], cacheFile: arguments[1])
    }
    // A device code in the library's window (issue 25). arguments: the device client's id, how
    // the person answers ("approve": on their phone, from the QR code on the screen; "cancel":
    // Cancel in the window), a file for the screenshot.
    case .brokerCookie: { arguments in await brokerCookieSignIn(arguments) }
    case .rssSignIns: { arguments in await rssSignIns(arguments) }
    case .deviceCodeWindow: { arguments in
        await deviceCodeWindowScenario(clientID: arguments[0], how: arguments[1], screenshot: arguments[2])
    }
    // A sign-in, a renewal, a sign-out and a device code through the desktop's proxy (issue 33).
    // arguments: where ("window", "view"), the client id, the device client's id.
    case .throughProxy: { arguments in
        await proxyScenario(where: arguments[0], clientID: arguments[1], deviceClientID: arguments[2])
    }
    // What WEBVIEW_HOST_PROVIDER=help prints here (the sandbox, the portals, each provider).
    case .help: { _ in
        var facts = ScenarioReport()
        facts[.message] = DefaultWebviewSelectionPolicy.helpText(providers: WebviewProviderRegistry.providers, environment: .current)
        facts[.outcome] = "success"
        return facts
    }
    // A later run of the app: the account signed in earlier, from the token store, renewed
    // silently without the network when its access token is still valid.
    case .silentFromStore: { arguments in
        var facts = ScenarioReport()
        do throws(WebAuthError) {
            let clientID = arguments.first ?? "webviewhost-tests"
            let app = try PublicClientApplication(configuration: .init(
                clientID: clientID, authority: issuer, redirectURI: URL(string: "http://127.0.0.1/callback")!,
                tokenCacheStorage: tokenStore(clientID: clientID)))
            guard let account = try await app.allAccounts().first else {
                facts[.outcome] = "noAccount"
                return facts
            }
            let result = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: scopes, account: account))
            facts[.outcome] = "success"
            facts[.username] = result.account.username ?? ""
            facts[.subject] = result.account.subject
        } catch {
            facts[.outcome] = "\(error.code)"
            facts[.message] = error.message
        }
        return facts
    }
    // A security key at Glewlwyd (issue 42): `register|sign-in <client id> [scope...]`
    // (SecurityKeyScenario.swift).
    case .securityKey: { arguments in
        await securityKeyScenario(mode: arguments[0], clientID: arguments[1], extraScopes: Array(arguments.dropFirst(2)))
    }
    // Starts in the library's embedded window and is handed over to the person's browser (the
    // test's Chromium) in the same await. arguments: client id, trigger (`refusal`: an app rule
    // matches Glewlwyd's login page; `app`: continueInSystemBrowser() after the first page
    // loaded), and `replay` to deliver the embedded request's state to the browser's listener.
    case .embeddedHandOver: { arguments in
        await HandOverScenario(arguments: arguments).run()
    }
    }
}
