// A device code in the library's window, end to end at the suite's Glewlwyd (issue 25): the app
// asks with `.window(parent:)`, the person's phone reads the QR code off the screen and approves
// at Glewlwyd, the window closes and the app has its tokens; or the person presses Cancel and the
// sign-in ends at once.
import CGLib
import CWebKitGTK3
import Foundation
import GLibSupport
import ScenarioSupport
import SignIn
import WebviewHost

@MainActor
func deviceCodeWindowScenario(clientID: String, how: String, screenshot: String) async -> ScenarioReport {
    var facts = ScenarioReport()
    let appWindow = gtk_window_new(GTK_WINDOW_TOPLEVEL)!
    gtk_window_set_title(wvh_window(appWindow), "Example App")
    gtk_window_set_default_size(wvh_window(appWindow), 900, 700)
    gtk_widget_show_all(appWindow)
    defer { gtk_widget_destroy(appWindow) }
    let app: PublicClientApplication
    do {
        app = try PublicClientApplication(configuration: .init(
            clientID: clientID, authority: issuer, redirectURI: URL(string: "http://127.0.0.1/callback")!,
            defaultScopes: ["openid", "profile", "email", "offline_access"], tokenCacheStorage: InMemoryTokenCacheStorage()))
    } catch {
        facts[.outcome] = "\(error)"
        return facts
    }
    let signIn = Task { @MainActor () -> Result<AuthenticationResult, WebAuthError> in
        do throws(WebAuthError) {
            return .success(try await app.acquireTokenWithDeviceCode(with: DeviceCodeParameters(
                scopes: [], display: .window(parent: WindowHandle(address: appWindow)))))
        } catch {
            return .failure(error)
        }
    }
    var window: UnsafeMutableRawPointer?
    _ = await ScenarioHost.wait(upTo: Patience.scaled(.seconds(20))) {
        window = deviceCodeToplevel()
        return window != nil
    }
    facts[.deviceWindowShown] = window != nil
    var decoded = ""
    if window != nil {
        decoded = await ScreenQRCode.read(screenshot: screenshot, upTo: Patience.scaled(.seconds(20)))
    }
    facts[.qrDecoded] = decoded
    switch how {
    case "cancel":
        if let window, let header = gtk_window_get_titlebar(wvh_window(window)) {
            pressButton(labelled: "_Cancel", in: UnsafeMutableRawPointer(header))
        }
    default:
        // The phone: the code from the link it read, signed in at Glewlwyd, "Continue".
        let code = URLComponents(string: decoded)?.queryItems?.first { $0.name == "code" }?.value ?? ""
        let base = issuer.absoluteString.replacingOccurrences(of: "/api/oidc", with: "")
        let approval = try? await ScriptRunner.run(
            "python3", [Checkout.fixture("Glewlwyd").appendingPathComponent("approve_device.py").path, base, environment["GLEWLWYD_USERNAME"] ?? "alice", environment["GLEWLWYD_PASSWORD"] ?? "alice-password", code],
            timeout: 30)
        facts[.approval] = approval?.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }
    let started = ContinuousClock.now
    switch await signIn.value {
    case .success(let result):
        facts[.outcome] = "success"
        facts[.username] = result.account.username ?? ""
    case .failure(let error):
        facts[.outcome] = "\(error.code)"
        facts[.message] = error.message
    }
    facts[.secondsToEnd] = Int((ContinuousClock.now - started).components.seconds)
    facts[.deviceWindowGone] = await ScenarioHost.wait(upTo: Patience.event) { deviceCodeToplevel() == nil }
    return facts
}

/// The shown "Sign in on another device" toplevel, if any.
@MainActor
private func deviceCodeToplevel() -> UnsafeMutableRawPointer? {
    let list = gtk_window_list_toplevels()
    defer { g_list_free(list) }
    var node = list
    while let current = node {
        if let window = current.pointee.data, gtk_widget_get_visible(wvh_widget(window)) != 0,
            gtk_window_get_title(wvh_window(window)).map({ String(cString: $0) }) == "Sign in on another device"
        {
            return window
        }
        node = current.pointee.next
    }
    return nil
}

/// Clicks the button labelled `label` under `widget` (`gtk_button_clicked`, as a person's click).
@MainActor
private func pressButton(labelled label: String, in widget: UnsafeMutableRawPointer) {
    if g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(widget)), gtk_button_get_type()) != 0,
        gtk_button_get_label(wvh_button(widget)).map({ String(cString: $0) }) == label
    {
        gtk_button_clicked(wvh_button(widget))
        return
    }
    guard g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(widget)), gtk_container_get_type()) != 0,
        let children = gtk_container_get_children(wvh_container(widget))
    else { return }
    defer { g_list_free(children) }
    var node: UnsafeMutablePointer<GList>? = children
    while let current = node {
        if let child = current.pointee.data { pressButton(labelled: label, in: child) }
        node = current.pointee.next
    }
}
