// What the sign-in scenarios share, on either toolkit (SignInScenarios for GTK 3,
// SignInScenariosGTK4 for GTK 4, which holds a link to this file): the issuer, the page driver
// that signs in on Glewlwyd's pages from the notifications, the token store, one sign-in.
import CGLib
#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import Foundation
import GLibSupport
import ScenarioSupport
import SignIn
import WebviewHost

let environment = ProcessInfo.processInfo.environment
let issuer = URL(string: environment["ISSUER"] ?? "http://127.0.0.1:4593/api/oidc")!
let scopes = ["openid", "profile", "email", "offline_access"]

/// Watches a session's notifications: injects the autopilot into every loaded page and records
/// the step titles the page announces.
@MainActor
final class PageDriver {
    private(set) var titles: [String] = []
    private(set) var notifications: [String] = []
    /// Each notification with its page's address (`DidStartLoad 127.0.0.1:8080/api/oidc/auth`).
    private(set) var loads: [String] = []
    private let signals = SignalConnections()
    private var observers: [any NSObjectProtocol] = []

    init(script: String?) {
        let names: [Notification.Name] = [.webAuthDidStartLoad, .webAuthDidFinishLoad, .webAuthDidComplete, .webAuthDidFail]
        for name in names {
            observers.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
                let handle = note.userInfo?[WebAuthNotificationKey.webview] as? WebviewHandle
                let finished = note.name == .webAuthDidFinishLoad
                let short = note.name.rawValue.replacingOccurrences(of: "WebAuth", with: "").replacingOccurrences(of: "Notification", with: "")
                let url = (note.userInfo?[WebAuthNotificationKey.url] as? URL).map { "\($0.host ?? ""):\($0.port ?? 0)\($0.path)" } ?? ""
                MainActor.assumeIsolated {
                    guard let self else { return }
                    self.notifications.append(short)
                    self.loads.append(url.isEmpty ? short : "\(short) \(url)")
                    guard finished, let handle, let script else { return }
                    self.watchTitle(of: handle)
                    webkit_web_view_evaluate_javascript(wvh_web_view(handle.address), script, -1, nil, nil, nil, nil, nil)
                }
            })
        }
    }

    private func watchTitle(of handle: WebviewHandle) {
        // Marked on the object, not kept by address: a sign-in's window is freed after the
        // session and the next one's view may be allocated at the same address.
        let view = handle.address
        let object = view.assumingMemoryBound(to: GObject.self)
        guard g_object_get_data(object, "wvh-test-title-watched") == nil else { return }
        g_object_set_data(object, "wvh-test-title-watched", view)
        signals.connect(view, "notify::title", .pointer { [weak self] in
            guard let title = webkit_web_view_get_title(wvh_web_view(view)) else { return }
            let text = String(cString: title)
            if text.hasPrefix("wvh:") { self?.titles.append(text) }
        })
    }

    func stop() {
        signals.disconnectAll()
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        observers = []
    }
}

/// The token store: memory, or with SIGNIN_TOKEN_STORE=secret the default one (the Secret
/// Service, or in a Flatpak sandbox libsecret's portal file backend), the same item with another
/// time limit when SIGNIN_TOKEN_STORE_TIMEOUT gives one (seconds).
func tokenStore(clientID: String) -> (any TokenCacheStorage)? {
    guard environment["SIGNIN_TOKEN_STORE"] == "secret" else { return InMemoryTokenCacheStorage() }
    guard let timeout = environment["SIGNIN_TOKEN_STORE_TIMEOUT"].flatMap(TimeInterval.init) else { return nil }
    return try? SecretServiceTokenCacheStorage(attributes: ["client_id": clientID], timeout: timeout)
}

@MainActor
func signIn(
    clientID: String, redirect: String, webview: WebviewParameters, driver: PageDriver, silentAfterwards: Bool = false
) async -> ScenarioReport {
    var facts = ScenarioReport()
    do throws(WebAuthError) {
        let app = try PublicClientApplication(configuration: .init(
            clientID: clientID, authority: issuer, redirectURI: URL(string: redirect)!, tokenCacheStorage: tokenStore(clientID: clientID)))
        let result = try await app.acquireToken(with: InteractiveTokenParameters(scopes: scopes, webviewParameters: webview))
        if let view = webview.customWebview?.address {
            // What the app finds in its view right after the await (EmbeddedSignIn.md says: "").
            facts[.uriAtResume] = webkit_web_view_get_uri(wvh_web_view(view)).map { String(cString: $0) } ?? ""
            facts[.isLoadingAtResume] = webkit_web_view_is_loading(wvh_web_view(view)) != 0
        }
        facts[.outcome] = "success"
        facts[.name] = result.account.name ?? ""
        facts[.username] = result.account.username ?? ""
        facts[.subject] = result.account.subject
        facts[.issuer] = result.account.issuer
        facts[.scopes] = result.scopes
        facts[.hasRefreshToken] = result.refreshToken != nil
        facts[.accessTokenLength] = result.accessToken.count
        if silentAfterwards {
            let renewed = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: scopes, account: result.account, forceRefresh: true))
            facts[.renewedAccessTokenDiffers] = renewed.accessToken != result.accessToken
            facts[.renewedSubject] = renewed.account.subject
        }
    } catch {
        facts[.outcome] = "\(error.code)"
        facts[.message] = error.message
    }
    driver.stop()
    facts[.titles] = driver.titles
    facts[.notifications] = driver.notifications
    facts[.loads] = driver.loads
    return facts
}


/// The app's own window holding its own `WebKitWebView`, shown (800 × 700): what an app that
/// passes its view (`customWebview`) has.
@MainActor
func appWindowWithView() -> (window: UnsafeMutablePointer<GtkWidget>, view: UnsafeMutablePointer<GtkWidget>) {
    #if WEBKITGTK_6
    let window = gtk_window_new()!
    gtk_window_set_default_size(wvh_window(window), 800, 700)
    let view = webkit_web_view_new()!
    gtk_window_set_child(wvh_window(window), view)
    gtk_window_present(wvh_window(window))
    #else
    let window = gtk_window_new(GTK_WINDOW_TOPLEVEL)!
    gtk_window_set_default_size(wvh_window(window), 800, 700)
    let view = webkit_web_view_new()!
    gtk_container_add(wvh_container(window), view)
    gtk_widget_show_all(window)
    #endif
    return (window, view)
}
