import CGLib
import CWebKitGTK
import Foundation
import GLibSupport
import ScenarioSupport
import WebviewHost

/// GTK and WebKit helpers the scenarios observe and drive pages with.
@MainActor
enum Probes {
    /// Toplevel windows now shown (the parent app window included).
    static func visibleToplevels() -> Int {
        guard let list = gtk_window_list_toplevels() else { return 0 }
        defer { g_list_free(list) }
        var count = 0
        var node: UnsafeMutablePointer<GList>? = list
        while let current = node {
            if let widget = current.pointee.data, gtk_widget_get_visible(wvh_widget(widget)) != 0,
                gtk_window_get_window_type(wvh_window(widget)) == GTK_WINDOW_TOPLEVEL
            {
                count += 1
            }
            node = current.pointee.next
        }
        return count
    }

    /// Runs page JavaScript in `view` (`webkit_web_view_evaluate_javascript`, result ignored).
    static func evaluate(_ script: String, in view: UnsafeMutableRawPointer) {
        webkit_web_view_evaluate_javascript(wvh_web_view(view), script, -1, nil, nil, nil, nil, nil)
    }

    static func uri(of view: UnsafeMutableRawPointer) -> String {
        webkit_web_view_get_uri(wvh_web_view(view)).map { String(cString: $0) } ?? ""
    }

    /// Sends a key press to a window as the display server would (`gtk_main_do_event`).
    static func pressKey(_ keyval: UInt32, on window: UnsafeMutableRawPointer) {
        guard let gdkWindow = gtk_widget_get_window(wvh_widget(window)), let event = gdk_event_new(GDK_KEY_PRESS)
        else { return }
        event.pointee.key.window = OpaquePointer(g_object_ref(UnsafeMutableRawPointer(gdkWindow)))
        event.pointee.key.keyval = guint(keyval)
        event.pointee.key.time = guint32(GDK_CURRENT_TIME)
        let display = gtk_widget_get_display(wvh_widget(window))
        gdk_event_set_device(event, gdk_seat_get_keyboard(gdk_display_get_default_seat(display)))
        gtk_main_do_event(event)
        gdk_event_free(event)
    }

    /// The first descendant of `widget` whose GType is named `typeName` (`"GtkSpinner"`).
    static func descendant(of widget: UnsafeMutableRawPointer, named typeName: String) -> UnsafeMutableRawPointer? {
        if String(cString: g_type_name(wvh_object_type(widget))) == typeName { return widget }
        guard g_type_check_instance_is_a(
            UnsafeMutablePointer(OpaquePointer(widget)), gtk_container_get_type()) != 0,
            let children = gtk_container_get_children(wvh_container(widget))
        else { return nil }
        defer { g_list_free(children) }
        var node: UnsafeMutablePointer<GList>? = children
        while let current = node {
            if let child = current.pointee.data, let found = descendant(of: child, named: typeName) { return found }
            node = current.pointee.next
        }
        return nil
    }

    /// A weak pointer to `object` that reads `nil` once it is finalized (`g_object_add_weak_pointer`).
    static func weakPointer(to object: UnsafeMutableRawPointer) -> UnsafeMutablePointer<gpointer?> {
        let slot = UnsafeMutablePointer<gpointer?>.allocate(capacity: 1)
        slot.initialize(to: object)
        g_object_add_weak_pointer(wvh_object(object), slot)
        return slot
    }

    /// A shown app window with a label, standing in for the app's main window.
    static func makeAppWindow(title: String = "Example App", width: Int32 = 1000, height: Int32 = 720)
        -> UnsafeMutableRawPointer
    {
        let window = UnsafeMutableRawPointer(gtk_window_new(GTK_WINDOW_TOPLEVEL)!)
        gtk_window_set_title(wvh_window(window), title)
        gtk_window_set_default_size(wvh_window(window), width, height)
        // A client-side title bar, so the app window is recognisable even without a window manager (Xvfb).
        let header = gtk_header_bar_new()!
        let headerBar = UnsafeMutableRawPointer(header).assumingMemoryBound(to: GtkHeaderBar.self)
        gtk_header_bar_set_title(headerBar, title)
        gtk_header_bar_set_show_close_button(headerBar, 1)
        gtk_window_set_titlebar(wvh_window(window), header)
        let label = gtk_label_new(nil)!
        gtk_label_set_markup(
            wvh_label(label), "<span size='x-large' weight='bold'>Example App</span>\nYour documents appear here once you are signed in.")
        gtk_widget_set_halign(label, GTK_ALIGN_START)
        gtk_widget_set_valign(label, GTK_ALIGN_START)
        gtk_widget_set_margin_start(label, 24)
        gtk_widget_set_margin_top(label, 16)
        gtk_container_add(wvh_container(window), label)
        gtk_widget_show_all(wvh_widget(window))
        return window
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
        var found = [widget]
        guard g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(widget)), gtk_container_get_type()) != 0,
            let children = gtk_container_get_children(wvh_container(widget))
        else { return found }
        defer { g_list_free(children) }
        var node: UnsafeMutablePointer<GList>? = children
        while let current = node {
            if let child = current.pointee.data { found += descendants(of: child) }
            node = current.pointee.next
        }
        return found
    }

    private static func isA(_ widget: UnsafeMutableRawPointer, _ type: GType) -> Bool {
        g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(widget)), type) != 0
    }

    /// A visible `GtkMessageDialog` among the toplevels, if any.
    static func visibleDialog() -> UnsafeMutableRawPointer? {
        guard let list = gtk_window_list_toplevels() else { return nil }
        defer { g_list_free(list) }
        var node: UnsafeMutablePointer<GList>? = list
        while let current = node {
            if let widget = current.pointee.data, isA(widget, gtk_message_dialog_get_type()),
                gtk_widget_get_visible(wvh_widget(widget)) != 0
            {
                return widget
            }
            node = current.pointee.next
        }
        return nil
    }

    /// The text of every label in `widget`.
    static func labelTexts(in widget: UnsafeMutableRawPointer) -> [String] {
        descendants(of: widget).filter { isA($0, gtk_label_get_type()) }
            .compactMap { gtk_label_get_text(wvh_label($0)).map { String(cString: $0) } }
            .filter { !$0.isEmpty }
    }

    /// The label of every button in `widget` (with its mnemonic underscore).
    static func buttonLabels(in widget: UnsafeMutableRawPointer) -> [String] {
        descendants(of: widget).filter { isA($0, gtk_button_get_type()) }
            .compactMap { gtk_button_get_label(UnsafeMutablePointer(OpaquePointer($0))).map { String(cString: $0) } }
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
            let pointer = UnsafeMutablePointer<GtkButton>(OpaquePointer(button))
            if gtk_button_get_label(pointer).map({ String(cString: $0) }) == label {
                gtk_button_clicked(pointer)
                return
            }
        }
    }

    /// Toplevel windows titled `title`, shown or not (`gtk_window_list_toplevels` holds every
    /// toplevel until it is destroyed).
    static func toplevelCount(titled title: String) -> Int {
        guard let list = gtk_window_list_toplevels() else { return 0 }
        defer { g_list_free(list) }
        var count = 0
        var node: UnsafeMutablePointer<GList>? = list
        while let current = node {
            if let widget = current.pointee.data,
                gtk_window_get_title(wvh_window(widget)).map({ String(cString: $0) }) == title
            {
                count += 1
            }
            node = current.pointee.next
        }
        return count
    }
}
