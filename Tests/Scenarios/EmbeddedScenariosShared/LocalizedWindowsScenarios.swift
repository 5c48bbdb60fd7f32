// What a person sees in their language (issue 26): the library's sign-in window over a plain
// http page (title, the host "not encrypted", Cancel, the load indicator's word), the question a
// foreign-scheme link asks, and the device-code window, every text collected as GTK holds it; the
// direction the window reads in and where Cancel sits; and the languages the page was asked in
// (Accept-Language, navigator.language). The person's language comes from the environment the
// test sets (LANGUAGE, LC_ALL), or from the app's choice (WebviewLocalization.languages).
import CGLib
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
    /// arguments: the app's choice of language ("" for the person's), a file for a screenshot.
    static let localizedWindows: Scenario = { arguments in
        try await localizedWindowsScenario(appLanguage: arguments[0], screenshot: arguments[1])
    }
}

/// The identity provider's own page in a few languages (title, field, button).
private let providerPages: [String: (title: String, field: String, next: String)] = [
    "en": ("Sign in to Example", "Email address", "Next"),
    "fr": ("Connectez-vous à Example", "Adresse e-mail", "Suivant"),
    "de": ("Bei Example anmelden", "E-Mail-Adresse", "Weiter"),
    "ar": ("سجّل الدخول إلى Example", "البريد الإلكتروني", "التالي"),
    "he": ("התחברות ל-Example", "כתובת דוא״ל", "הבא"),
]

@MainActor
func localizedWindowsScenario(appLanguage: String, screenshot: String) async throws -> ScenarioReport {
    if !appLanguage.isEmpty { WebviewLocalization.languages = [appLanguage] }
    let app = Probes.makeAppWindow()
    let callback = try callbackListener()
    let idp = try TestServer()
    var acceptLanguage = ""
    var navigatorLanguages = ""
    idp.route("/authorize") { request in
        acceptLanguage = request.acceptLanguage ?? ""
        // The provider's page in the language the view asked for, as a real provider answers.
        let first = acceptLanguage.prefix { $0 != "," && $0 != ";" && $0 != "-" }
        let page = providerPages[String(first)] ?? providerPages["en"]!
        return .html("""
            <!doctype html><html lang="\(first)" dir="\(first == "ar" || first == "he" ? "rtl" : "ltr")"><head><title>\(page.title)</title>
            <style>body{font-family:sans-serif;margin:32px}input{display:block;width:90%;padding:8px;margin:8px 0 20px}
            button{padding:8px 24px;background:#3584e4;color:white;border:0;border-radius:6px}</style></head>
            <body><h2>\(page.title)</h2><form><label>\(page.field)<input type="email" value="alice@example.com"></label>
            <button type="button">\(page.next)</button></form>
            <script>addEventListener('load', () => { fetch('/languages?' + encodeURIComponent(navigator.languages.join(','))) })</script>
            </body></html>
            """)
    }
    idp.route("/languages") { request in
        navigatorLanguages = request.query.flatMap { $0.removingPercentEncoding } ?? ""
        return .html("ok")
    }
    var parameters = WebviewParameters(webviewType: .embedded, parentWindow: WindowHandle(address: app), timeout: .seconds(60))
    parameters.externalSchemes = .ask
    let run = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize"))
    guard await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview, let window = Toolkit.window(of: view) else {
        return run.recorder.pageNeverLoaded()
    }
    _ = await ScenarioHost.wait(upTo: Patience.event) { !navigatorLanguages.isEmpty }
    var facts = ScenarioReport()
    facts[.acceptLanguage] = acceptLanguage
    facts[.navigatorLanguages] = navigatorLanguages
    let titlebar = gtk_window_get_titlebar(wvh_window(window)).map { UnsafeMutableRawPointer($0) }
    var shown = [gtk_window_get_title(wvh_window(window)).map { String(cString: $0) } ?? "", Toolkit.subtitle(of: window)]
    shown += Probes.labelTexts(in: window) + (titlebar.map { Probes.labelTexts(in: $0) + Probes.buttonLabels(in: $0) } ?? [])
    let cancel = titlebar.flatMap { bar in
        Probes.descendants(of: bar).first { widget in
            g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(widget)), gtk_button_get_type()) != 0
        }
    }
    facts[.direction] = gtk_widget_get_direction(wvh_widget(window)) == GTK_TEXT_DIR_RTL ? "rtl" : "ltr"
    if let cancel, let centre = Toolkit.centreInWindow(of: cancel) {
        facts[.cancelOnTheRight] = centre.x > Toolkit.size(of: window).width / 2
    }
    // The picture, for a person to look at: taken once the window painted a frame after the page
    // loaded (its frame clock's after-paint), not after a guessed pause.
    var painted = false
    let paintWatch = SignalConnections()
    if let clock = Toolkit.frameClock(of: window) {
        paintWatch.connect(clock, "after-paint", .plain { painted = true })
        gtk_widget_queue_draw(wvh_widget(window))
        _ = await ScenarioHost.wait(upTo: Patience.event) { painted }
    }
    paintWatch.disconnectAll()
    _ = await ScreenQRCode.read(screenshot: screenshot)

    // The question a link to another app asks (evaluate_javascript: a click's gesture).
    Probes.evaluate("location.href = 'mailto:someone@example.com'", in: view)
    _ = await ScenarioHost.wait(upTo: Patience.event) { Probes.visibleDialog() != nil }
    if let dialog = Probes.visibleDialog() {
        shown += [gtk_window_get_title(wvh_window(dialog)).map { String(cString: $0) } ?? ""]
        shown += Probes.labelTexts(in: dialog) + Probes.buttonLabels(in: dialog)
        facts[.dialogDirection] = gtk_widget_get_direction(wvh_widget(dialog)) == GTK_TEXT_DIR_RTL ? "rtl" : "ltr"
        Toolkit.pressKey(UInt32(GDK_KEY_Escape), on: dialog)
    }
    if let titlebar, let label = Probes.buttonLabels(in: titlebar).first {
        Probes.clickButton(labelled: label, in: titlebar)  // Cancel, in whatever language
    }
    _ = try await run.outcome()

    // The device-code window, as SignIn shows it.
    let close = Toolkit.deviceCodeWindow(
        DeviceCodeWindowContent(
            userCode: "WDJB-MJHT", link: URL(string: "https://login.example.com/device")!, instructions: "(SignIn's text)",
            expiresOn: Date().addingTimeInterval(600), qrCode: [[true, false], [false, true]]),
        parent: WindowHandle(address: app)
    ) {}
    var deviceWindow: UnsafeMutableRawPointer?
    _ = await ScenarioHost.wait(upTo: Patience.event) {
        deviceWindow = Toolkit.toplevels().first { $0 != app && $0 != window && gtk_widget_get_visible(wvh_widget($0)) != 0 }
        return deviceWindow != nil
    }
    if let deviceWindow {
        shown += [gtk_window_get_title(wvh_window(deviceWindow)).map { String(cString: $0) } ?? ""]
        shown += Probes.labelTexts(in: deviceWindow)
        if let bar = gtk_window_get_titlebar(wvh_window(deviceWindow)) {
            shown += Probes.labelTexts(in: UnsafeMutableRawPointer(bar)) + Probes.buttonLabels(in: UnsafeMutableRawPointer(bar))
        }
    }
    close()
    var seen = Set<String>()
    facts[.shownTexts] = shown.filter { !$0.isEmpty && seen.insert($0).inserted }
    facts[.outcome] = "success"
    return facts
}
