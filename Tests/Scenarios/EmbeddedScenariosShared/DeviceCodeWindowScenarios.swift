// The library's window for a device code (issue 25), in this toolkit: presented over an app
// window as SignIn presents it, looked at as a person and a screen reader would (the labels, the
// focus, the code's accessible name, the QR code read back from a screenshot with zbarimg), then
// Escape, Cancel, closing, a parent destroyed with the window open, and a code running out.
import CGLib
import CQREncode
#if WEBKITGTK_6
import CWebKitGTK4
import EmbeddedWebviewProviderGTK4
#else
import CWebKitGTK3
import EmbeddedWebviewProviderGTK3
#endif
import Foundation
import GLibSupport
import ScenarioSupport
import WebviewHost

@MainActor
extension EmbeddedScenarios {
    /// arguments: a file to save the screenshot in.
    static let deviceCodeWindow: Scenario = { arguments in try await deviceCodeWindowScenario(screenshot: arguments[0]) }
}

@MainActor
func deviceCodeWindowScenario(screenshot: String) async throws -> ScenarioReport {
    var facts = ScenarioReport()
    let app = Probes.makeAppWindow(title: "Example App", width: 900, height: 700)
    let link = URL(string: "http://127.0.0.1:4593/api/oidc/device?code=WDJB-MJHT")!
    let instructions = "To sign in, open \(link.absoluteString) on your phone or computer (the code WDJB-MJHT is filled in).\n"
        + "You are letting this device sign in as you. Go on only if you started this sign-in yourself."
    var cancels = 0
    let close = Toolkit.deviceCodeWindow(
        DeviceCodeWindowContent(
            userCode: "WDJB-MJHT", link: link, instructions: instructions, expiresOn: Date().addingTimeInterval(600),
            qrCode: qrRows(link.absoluteString)),
        parent: WindowHandle(address: app)
    ) { cancels += 1 }
    guard let window = await deviceCodeWindow() else {
        facts[.outcome] = "no device-code window among the toplevels"
        return facts
    }
    facts[.deviceWindowTransientForApp] = gtk_window_get_transient_for(wvh_window(window)).map(UnsafeMutableRawPointer.init) == app
    facts[.deviceWindowModal] = gtk_window_get_modal(wvh_window(window)) != 0
    facts[.windowLabels] = Probes.labelTexts(in: window)
    facts[.headerButtons] = gtk_window_get_titlebar(wvh_window(window)).map { Probes.buttonLabels(in: UnsafeMutableRawPointer($0)) } ?? []
    facts[.timeLeftText] = timeLeft(in: window)
    let code = Probes.descendants(of: window).first { widget in
        g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(widget)), gtk_label_get_type()) != 0
            && gtk_label_get_text(wvh_label(widget)).map { String(cString: $0) } == "WDJB-MJHT"
    }
    if let code {
        facts[.codeSelectable] = gtk_label_get_selectable(wvh_label(code)) != 0
        facts[.codeAccessibleName] = Toolkit.accessibleName(of: code) ?? "(no getter)"
    }
    if let focus = gtk_window_get_focus(wvh_window(window)) {
        facts[.focusedText] = Probes.labelTexts(in: UnsafeMutableRawPointer(focus)).first ?? String(cString: g_type_name(wvh_object_type(focus)))
    }
    // What a phone's camera sees: the screen, read by zbarimg until it finds the code.
    facts[.qrDecoded] = await ScreenQRCode.read(screenshot: screenshot, upTo: Patience.scaled(.seconds(20)))
    facts[.screenshot] = screenshot

    Toolkit.pressKey(UInt32(GDK_KEY_Escape), on: window)
    _ = await ScenarioHost.wait(upTo: Patience.event) { cancels > 0 }
    facts[.cancelsAfterEscape] = cancels
    if let header = gtk_window_get_titlebar(wvh_window(window)) {
        Probes.clickButton(labelled: "_Cancel", in: UnsafeMutableRawPointer(header))
    }
    facts[.cancelsAfterButton] = cancels
    close()
    facts[.goneAfterClose] = await ScenarioHost.wait(upTo: Patience.event) { !Toolkit.toplevels().contains(window) }

    // A second window, whose code runs out in two seconds, and whose parent the app destroys.
    let parent = Probes.makeAppWindow(title: "Second App Window", width: 600, height: 400)
    var parentCancels = 0
    let closeSecond = Toolkit.deviceCodeWindow(
        DeviceCodeWindowContent(userCode: "ABCD-EFGH", link: link, instructions: "Two seconds.", expiresOn: Date().addingTimeInterval(2), qrCode: nil),
        parent: WindowHandle(address: parent)
    ) { parentCancels += 1 }
    guard let second = await deviceCodeWindow(except: window) else {
        facts[.outcome] = "no second device-code window"
        return facts
    }
    _ = await ScenarioHost.wait(upTo: Patience.scaled(.seconds(10))) { timeLeft(in: second) == "This code has expired." }
    facts[.timeLeftText.suffixed(by: "Expired")] = timeLeft(in: second)
    Toolkit.destroyWindow(parent)
    facts[.goneWithParent] = await ScenarioHost.wait(upTo: Patience.event) { !Toolkit.toplevels().contains(second) }
    facts[.cancelsWithParent] = parentCancels
    closeSecond()  // the sign-in ends afterwards: nothing left to close
    Toolkit.destroyWindow(app)
    facts[.outcome] = "success"
    return facts
}

/// The shown toplevel titled "Sign in on another device" (other than `except`), once there is one.
@MainActor
private func deviceCodeWindow(except: UnsafeMutableRawPointer? = nil) async -> UnsafeMutableRawPointer? {
    var found: UnsafeMutableRawPointer?
    _ = await ScenarioHost.wait(upTo: Patience.event) {
        found = Toolkit.toplevels().first { window in
            window != except && gtk_widget_get_visible(wvh_widget(window)) != 0
                && gtk_window_get_title(wvh_window(window)).map { String(cString: $0) } == "Sign in on another device"
        }
        return found != nil
    }
    return found
}

/// The window's line saying how long the code works.
@MainActor
private func timeLeft(in window: UnsafeMutableRawPointer) -> String {
    Probes.labelTexts(in: window).first { $0.hasPrefix("Time left") || $0.hasPrefix("This code") } ?? ""
}

/// The QR code of `text` as SignIn makes it (libqrencode, level M), row by row.
private func qrRows(_ text: String) -> [[Bool]]? {
    guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
    defer { QRcode_free(code) }
    let width = Int(code.pointee.width)
    return (0..<width).map { y in (0..<width).map { x in code.pointee.data[y * width + x] & 1 == 1 } }
}
