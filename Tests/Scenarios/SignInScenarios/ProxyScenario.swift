// Everything a sign-in sends, through the proxy the test set (issue 33): the desktop's proxy
// (GNOME's settings, or the environment's variables, whichever the test gave this process) is
// the route of the embedded view's pages and of SignIn's own requests alike. In one run: an
// interactive sign-in (the library's window or the app's view), a renewal, a sign-out at the
// identity provider, and a device-code sign-in approved on "the phone" (straight to Glewlwyd,
// not through the proxy). The test reads the proxy's log. On GTK 3 (SignInScenarios) and GTK 4
// (SignInScenariosGTK4, which links this file).
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
import Synchronization
import WebviewHost

@MainActor
func proxyScenario(where mode: String, clientID: String, deviceClientID: String) async -> ScenarioReport {
    var facts = ScenarioReport()
    var webview = WebviewParameters(webviewType: .embedded, timeout: .seconds(60))
    if mode == "view" {
        webview = WebviewParameters(customWebview: WebviewHandle(address: appWindowWithView().view), timeout: .seconds(60))
    }
    let driver = PageDriver(script: autopilotScript(username: "alice", passwords: ["alice-password"]))
    defer { driver.stop() }
    var step = "sign-in"
    // SIGNIN_PROXY_PASSWORDS: the app answers the proxy's question with these, one per question
    // (the last again when they run out); the test counts the questions.
    let asks = Asks()
    if let passwords = environment["SIGNIN_PROXY_PASSWORDS"]?.split(separator: ",").map(String.init), !passwords.isEmpty {
        ProxyAuthentication.ask = { _ in
            let index = asks.next()
            return ProxyCredential(user: "alice-proxy", password: passwords[min(index, passwords.count - 1)])
        }
    }
    // SIGNIN_PROXY_DIALOG: no app answer; the library's own dialog asks and is answered with real
    // key events: "<user> <password>", or "cancel" (Escape). The test counts the dialogs.
    let dialogs = ProxyDialogAnswerer()
    if let answer = environment["SIGNIN_PROXY_DIALOG"] {
        let words = answer.split(separator: " ").map(String.init)
        dialogs.start(answer: words == ["cancel"] ? nil : (words[0], words[1]))
    }
    defer { dialogs.stop() }
    do throws(WebAuthError) {
        // SIGNIN_NETWORK_PROXY: the app's proxy, on both configurations.
        let appProxy = try environment["SIGNIN_NETWORK_PROXY"].map { address throws(WebAuthError) in try NetworkProxy(address) }
        var configuration = PublicClientApplicationConfiguration(
            clientID: clientID, authority: issuer, redirectURI: URL(string: "http://127.0.0.1:23685/embedded-callback")!,
            tokenCacheStorage: InMemoryTokenCacheStorage())
        configuration.networkProxy = appProxy
        let app = try PublicClientApplication(configuration: configuration)
        let first = try await app.acquireToken(with: InteractiveTokenParameters(scopes: scopes, webviewParameters: webview))
        facts[.username] = first.account.username ?? ""
        step = "renewal"
        let renewed = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: scopes, account: first.account, forceRefresh: true))
        facts[.renewedAccessTokenDiffers] = renewed.accessToken != first.accessToken
        step = "sign-out"
        let signedOut = try await app.signOut(first.account, with: SignOutParameters(
            reach: .identityProvider, webviewParameters: webview,
            postLogoutRedirectURI: URL(string: "http://127.0.0.1:23685/embedded-logged-out")!))
        switch signedOut.identityProvider {
        case .signedOut: facts[.signOutOutcome] = "signedOut"
        case .notAsked: facts[.signOutOutcome] = "notAsked"
        case .siteDataCleared(let sites): facts[.signOutOutcome] = "siteDataCleared \(sites.joined(separator: ","))"
        case .notPossible(let reason): facts[.signOutOutcome] = "notPossible: \(reason)"
        case .failed(let error): facts[.signOutOutcome] = "failed \(error.code): \(error.message)"
        }
        step = "device code"
        var deviceConfiguration = PublicClientApplicationConfiguration(
            clientID: deviceClientID, authority: issuer, redirectURI: URL(string: "http://127.0.0.1/callback")!,
            defaultScopes: ["openid", "profile", "email", "offline_access"], tokenCacheStorage: InMemoryTokenCacheStorage())
        deviceConfiguration.networkProxy = appProxy
        let device = try PublicClientApplication(configuration: deviceConfiguration)
        let approval = Mutex<Task<String, Never>?>(nil)
        let base = issuer.absoluteString.replacingOccurrences(of: "/api/oidc", with: "")
        let username = environment["GLEWLWYD_USERNAME"] ?? "alice", password = environment["GLEWLWYD_PASSWORD"] ?? "alice-password"
        let approver = Checkout.fixture("Glewlwyd").appendingPathComponent("approve_device.py").path
        let byCode = try await device.acquireTokenWithDeviceCode(with: DeviceCodeParameters(scopes: [], display: .app { challenge in
            // The phone: straight to Glewlwyd (Python ignores GNOME's settings, and is given no
            // proxy variables: the desktop's proxy may want a password it does not have).
            approval.withLock {
                $0 = Task {
                    let direct = Dictionary(uniqueKeysWithValues: ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"].map { ($0, "") })
                    let run = try? await ScriptRunner.run(
                        "python3", [approver, base, username, password, challenge.userCode], environment: direct, timeout: 30)
                    return run?.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                }
            }
        }))
        facts[.approval] = await approval.withLock { $0 }?.value ?? ""
        facts[.deviceUsername] = byCode.account.username ?? ""
        facts[.outcome] = "success"
    } catch {
        facts[.outcome] = "\(error.code)"
        facts[.message] = "\(step): \(error.message)"
    }
    facts[.loads] = driver.loads
    facts[.proxyAsks] = environment["SIGNIN_PROXY_DIALOG"] == nil ? asks.count : dialogs.count
    facts[.proxyDialogTexts] = dialogs.texts
    return facts
}

/// Answers the library's proxy dialog ("Sign in to the proxy") whenever it shows, with xdotool
/// keys (real key events through XTest) sent to it, again from empty fields when a loaded machine
/// lost them; counts the dialogs.
@MainActor
final class ProxyDialogAnswerer {
    private(set) var count = 0
    private(set) var texts: [String] = []
    private var task: Task<Void, Never>?
    private var stopped = false

    /// `answer`: the user name and password to type (Tab between them, then Return); `nil`: Escape.
    func start(answer: (user: String, password: String)?) {
        let keys = answer.map { ["type \($0.user)", "key Tab", "type \($0.password)"] } ?? []
        let submit = answer == nil ? "key Escape" : "key Return"
        task = Task { @MainActor [weak self] in
            while let self, !self.stopped {
                var dialog: UnsafeMutableRawPointer?
                _ = await ScenarioHost.wait(upTo: .seconds(3600)) {
                    if self.stopped { return true }
                    dialog = Self.visibleDialog()
                    return dialog != nil
                }
                guard let dialog, !self.stopped else { return }
                self.count += 1
                self.texts += Self.labels(in: dialog)
                let slot = UnsafeMutablePointer<gpointer?>.allocate(capacity: 1)
                slot.initialize(to: dialog)
                g_object_add_weak_pointer(UnsafeMutablePointer(OpaquePointer(dialog)), slot)
                let answered = { slot.pointee.map { gtk_widget_get_visible(wvh_widget($0)) == 0 } ?? true }
                // Return only once the fields hold what was typed: a lost key would send a wrong password.
                let entries = Self.entries(in: dialog)
                let typed = { answer.map { entries.map(Self.text(of:)) == [$0.user, $0.password] } ?? true }
                for attempt in 1...5 where !answered() {
                    for entry in entries { Self.clear(entry) }
                    if let first = entries.first { gtk_widget_grab_focus(wvh_widget(first)) }
                    for key in keys { Self.xdotool("search --onlyvisible --name '^Sign in to the proxy$' windowfocus \(key)") }
                    guard await ScenarioHost.wait(upTo: Patience.scaled(.seconds(3)), until: typed) else { continue }
                    Self.xdotool("search --onlyvisible --name '^Sign in to the proxy$' windowfocus \(submit)")
                    _ = await ScenarioHost.wait(upTo: attempt < 5 ? Patience.scaled(.seconds(6)) : Patience.event, until: answered)
                }
                if let object = slot.pointee { g_object_remove_weak_pointer(UnsafeMutablePointer(OpaquePointer(object)), slot) }
                slot.deallocate()
            }
        }
    }

    func stop() {
        stopped = true
        task?.cancel()
    }

    private static func visibleDialog() -> UnsafeMutableRawPointer? {
        let list = gtk_window_list_toplevels()
        defer { g_list_free(list) }
        var node = list
        while let current = node {
            if let window = current.pointee.data, gtk_widget_get_visible(wvh_widget(window)) != 0,
                gtk_window_get_title(wvh_window(window)).map({ String(cString: $0) }) == "Sign in to the proxy"
            {
                return window
            }
            node = current.pointee.next
        }
        return nil
    }

    private static func descendants(of widget: UnsafeMutableRawPointer) -> [UnsafeMutableRawPointer] {
        var children: [UnsafeMutableRawPointer] = []
        #if WEBKITGTK_6
        var child = gtk_widget_get_first_child(wvh_widget(widget))
        while let current = child {
            children.append(UnsafeMutableRawPointer(current))
            child = gtk_widget_get_next_sibling(current)
        }
        #else
        if g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(widget)), gtk_container_get_type()) != 0 {
            let callback: @convention(c) (UnsafeMutablePointer<GtkWidget>?, gpointer?) -> Void = { child, data in
                guard let child, let data else { return }
                data.assumingMemoryBound(to: [UnsafeMutableRawPointer].self).pointee.append(UnsafeMutableRawPointer(child))
            }
            withUnsafeMutablePointer(to: &children) { gtk_container_forall(wvh_container(widget), callback, $0) }
        }
        #endif
        return [widget] + children.flatMap { descendants(of: $0) }
    }

    /// What an entry holds.
    private static func text(of entry: UnsafeMutableRawPointer) -> String {
        #if WEBKITGTK_6
        gtk_editable_get_text(OpaquePointer(entry)).map { String(cString: $0) } ?? ""
        #else
        gtk_entry_get_text(wvh_entry(entry)).map { String(cString: $0) } ?? ""
        #endif
    }

    /// Empties an entry.
    private static func clear(_ entry: UnsafeMutableRawPointer) {
        #if WEBKITGTK_6
        gtk_editable_set_text(OpaquePointer(entry), "")
        #else
        gtk_entry_set_text(wvh_entry(entry), "")
        #endif
    }

    private static func entries(in dialog: UnsafeMutableRawPointer) -> [UnsafeMutableRawPointer] {
        descendants(of: dialog).filter { g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer($0)), gtk_entry_get_type()) != 0 }
    }

    private static func labels(in dialog: UnsafeMutableRawPointer) -> [String] {
        descendants(of: dialog).filter { g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer($0)), gtk_label_get_type()) != 0 }
            .compactMap { gtk_label_get_text(wvh_label($0)).map { String(cString: $0) } }.filter { !$0.isEmpty }
    }

    private static func xdotool(_ arguments: String) {
        var error: UnsafeMutablePointer<GError>?
        if g_spawn_command_line_sync("xdotool " + arguments, nil, nil, nil, &error) == 0, let error { g_error_free(error) }
    }
}

/// The questions the proxy asked the app.
final class Asks: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    /// Counts one question; returns how many came before it.
    func next() -> Int {
        value.withLock { count in
            count += 1
            return count - 1
        }
    }
}
