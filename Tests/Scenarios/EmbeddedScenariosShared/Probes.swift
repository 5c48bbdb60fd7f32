import CGLib
#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import Foundation
import GLibSupport
import ScenarioSupport
import WebviewHost

/// GTK and WebKit helpers the scenarios observe and drive pages with.
@MainActor
enum Probes {
    /// Toplevel windows now shown (the parent app window included).
    static func visibleToplevels() -> Int {
        Toolkit.toplevels().filter { gtk_widget_get_visible(wvh_widget($0)) != 0 }.count
    }

    /// Runs page JavaScript in `view` (`webkit_web_view_evaluate_javascript`, the same in WebKitGTK 4.1
    /// and 6.0; result ignored). It runs with a user gesture.
    static func evaluate(_ script: String, in view: UnsafeMutableRawPointer) {
        webkit_web_view_evaluate_javascript(wvh_web_view(view), script, -1, nil, nil, nil, nil, nil)
    }

    static func uri(of view: UnsafeMutableRawPointer) -> String {
        webkit_web_view_get_uri(wvh_web_view(view)).map { String(cString: $0) } ?? ""
    }

    /// The first descendant of `widget` whose GType is named `typeName` (`"GtkSpinner"`).
    static func descendant(of widget: UnsafeMutableRawPointer, named typeName: String) -> UnsafeMutableRawPointer? {
        descendants(of: widget).first { String(cString: g_type_name(wvh_object_type($0))) == typeName }
    }

    /// A weak pointer to `object` that reads `nil` once it is finalized (`g_object_add_weak_pointer`).
    static func weakPointer(to object: UnsafeMutableRawPointer) -> UnsafeMutablePointer<gpointer?> {
        let slot = UnsafeMutablePointer<gpointer?>.allocate(capacity: 1)
        slot.initialize(to: object)
        g_object_add_weak_pointer(wvh_object(object), slot)
        return slot
    }

    /// A shown app window with a header bar and a label, standing in for the app's main window.
    static func makeAppWindow(title: String = "Example App", width: Int32 = 1000, height: Int32 = 720)
        -> UnsafeMutableRawPointer
    {
        Toolkit.makeAppWindow(title: title, width: width, height: height)
    }

    /// The app's own view: a new `WebKitWebView` in a shown window of the app's, as an app that
    /// passes its view (`customWebview`) has it.
    static func makeAppView(width: Int32 = 640, height: Int32 = 480) -> (window: UnsafeMutableRawPointer, view: UnsafeMutableRawPointer) {
        let window = Toolkit.makeWindow(width: width, height: height)
        let view = UnsafeMutableRawPointer(webkit_web_view_new()!)
        Toolkit.setChild(view, of: window)
        Toolkit.show(window)
        return (window, view)
    }

    /// A self-signed certificate for 127.0.0.1 made with `openssl req` in a temporary folder.
    static func selfSignedCertificate() throws -> UnsafeMutablePointer<GTlsCertificate> {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cert = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        return try withGError { error in g_tls_certificate_new_from_files(cert, key, error) }!
    }

    /// Every widget under `widget` (itself included), depth first.
    static func descendants(of widget: UnsafeMutableRawPointer) -> [UnsafeMutableRawPointer] {
        [widget] + Toolkit.children(of: widget).flatMap { descendants(of: $0) }
    }

    private static func isA(_ widget: UnsafeMutableRawPointer, _ type: GType) -> Bool {
        g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(widget)), type) != 0
    }

    /// A visible `GtkMessageDialog` among the toplevels, if any (its type by name: GTK 4.10
    /// deprecates the class, and the test only looks for it).
    static func visibleDialog() -> UnsafeMutableRawPointer? {
        let type = g_type_from_name("GtkMessageDialog")
        return Toolkit.toplevels().first { isA($0, type) && gtk_widget_get_visible(wvh_widget($0)) != 0 }
    }

    /// The titles of the shown dialogs still open ("still open: <title>").
    static func visibleDialogTitles() -> [String] {
        let type = g_type_from_name("GtkDialog")
        return Toolkit.toplevels().filter { isA($0, type) && gtk_widget_get_visible(wvh_widget($0)) != 0 }
            .map { "still open: " + (gtk_window_get_title(wvh_window($0)).map { String(cString: $0) } ?? "") }
    }

    /// The text of every label in `widget`.
    static func labelTexts(in widget: UnsafeMutableRawPointer) -> [String] {
        descendants(of: widget).filter { isA($0, gtk_label_get_type()) }
            .compactMap { gtk_label_get_text(wvh_label($0)).map { String(cString: $0) } }
            .filter { !$0.isEmpty }
    }

    /// The first `GtkListBox` in `widget`.
    static func firstListBox(in widget: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        descendants(of: widget).first { isA($0, gtk_list_box_get_type()) }
    }

    /// Whether the button labelled `label` (mnemonic underscore included) in `widget` takes clicks
    /// (`gtk_widget_is_sensitive`); `nil` without such a button.
    static func buttonSensitive(labeled label: String, in widget: UnsafeMutableRawPointer) -> Bool? {
        descendants(of: widget).first { button in
            isA(button, gtk_button_get_type())
                && gtk_button_get_label(UnsafeMutablePointer(OpaquePointer(button))).map { String(cString: $0) } == label
        }.map { gtk_widget_is_sensitive(wvh_widget($0)) != 0 }
    }

    /// The label of every button in `widget` (with its mnemonic underscore).
    static func buttonLabels(in widget: UnsafeMutableRawPointer) -> [String] {
        descendants(of: widget).filter { isA($0, gtk_button_get_type()) }
            .compactMap { gtk_button_get_label(UnsafeMutablePointer(OpaquePointer($0))).map { String(cString: $0) } }
    }

    /// The label of every shown button in `widget`, "(icon)" for a button without one (the title
    /// bar's window controls).
    static func shownButtons(in widget: UnsafeMutableRawPointer) -> [String] {
        descendants(of: widget).filter { isA($0, gtk_button_get_type()) && isVisible($0) }
            .map { gtk_button_get_label(UnsafeMutablePointer(OpaquePointer($0))).map { String(cString: $0) } ?? "(icon)" }
    }

    /// The label of the window's default button (what Enter activates).
    static func defaultButtonLabel(in window: UnsafeMutableRawPointer) -> String? {
        guard let widget = gtk_window_get_default_widget(wvh_window(window)),
            isA(UnsafeMutableRawPointer(widget), gtk_button_get_type())
        else { return nil }
        return gtk_button_get_label(UnsafeMutablePointer(OpaquePointer(widget))).map { String(cString: $0) }
    }

    /// Clicks the button labelled `label` in `widget` (`gtk_button_clicked`, as a person's click).
    static func clickButton(labelled label: String, in widget: UnsafeMutableRawPointer) {
        for button in descendants(of: widget) where isA(button, gtk_button_get_type()) {
            if gtk_button_get_label(UnsafeMutablePointer(OpaquePointer(button))).map({ String(cString: $0) }) == label {
                Toolkit.click(button)
                return
            }
        }
    }

    /// The button labelled `label` (with its mnemonic underscore) in `widget`, if any.
    static func findButton(labelled label: String, in widget: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        descendants(of: widget).first { button in
            isA(button, gtk_button_get_type())
                && gtk_button_get_label(UnsafeMutablePointer(OpaquePointer(button))).map({ String(cString: $0) }) == label
        }
    }

    /// Whether `widget` is shown and all its ancestors are (`gtk_widget_is_visible`).
    static func isVisible(_ widget: UnsafeMutableRawPointer) -> Bool {
        gtk_widget_is_visible(wvh_widget(widget)) != 0
    }

    /// Waits (running the main loop) for a shown toplevel titled `title`; `nil` after `limit`.
    static func waitForToplevel(titled title: String, within limit: Duration) async -> UnsafeMutableRawPointer? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let window = Toolkit.toplevels().first(where: {
                gtk_widget_get_visible(wvh_widget($0)) != 0
                    && gtk_window_get_title(wvh_window($0)).map { String(cString: $0) } == title
            }) {
                return window
            }
            await ScenarioHost.idle(.milliseconds(25))
        }
        return nil
    }

    /// Toplevel windows titled `title`, shown or not (GTK keeps every toplevel in its list until
    /// it is destroyed).
    static func toplevelCount(titled title: String) -> Int {
        Toolkit.toplevels().filter { gtk_window_get_title(wvh_window($0)).map { String(cString: $0) } == title }.count
    }
}

/// What the app window of the scenarios shows (`Toolkit.makeAppWindow`): a heading and a line,
/// top left, the same on both toolkits.
@MainActor
func makeAppContentLabel() -> UnsafeMutableRawPointer {
    let label = gtk_label_new(nil)!
    gtk_label_set_markup(
        wvh_label(label), "<span size='x-large' weight='bold'>Example App</span>\nYour documents appear here once you are signed in.")
    gtk_widget_set_halign(label, GTK_ALIGN_START)
    gtk_widget_set_valign(label, GTK_ALIGN_START)
    gtk_widget_set_margin_start(label, 24)
    gtk_widget_set_margin_top(label, 16)
    return UnsafeMutableRawPointer(label)
}
