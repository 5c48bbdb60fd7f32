#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// The library's window for a device code (the person signs in on another device): the
/// instructions with the phishing warning, the code in large type (selectable, read character by
/// character by a screen reader), a QR code of the link, the link, and the time left, under a
/// header bar with "Cancel". Modal over and transient for the parent when there is one.
///
/// "Cancel", Escape, closing the window and its destruction by someone else call `cancel` (once);
/// the sign-in then ends and closes the window with the function ``present(_:parent:cancel:)``
/// returned. ``DeviceCodeWindowWidgets`` (one per toolkit) builds what differs.
@MainActor
final class DeviceCodeWindow {
    static var title: String { ShownText.tr("window title", "Sign in on another device") }
    static var codeCaption: String { ShownText.tr("device code", "Your code") }
    static var scanCaption: String { ShownText.tr("device code", "Or scan this code with your phone's camera") }
    static var expiredText: String { ShownText.tr("device code", "This code has expired.") }

    private let widgets: DeviceCodeWindowWidgets
    /// The window's reference: ours until ``close()``, whoever destroys the window first.
    private var reference: GObjectRef<LibraryWindow.Window>?
    private let connections = SignalConnections()
    private let timeLeft: UnsafeMutablePointer<GtkWidget>
    private let expiresOn: Date
    private var cancel: (@MainActor () -> Void)?
    private var closed = false

    static func present(_ content: DeviceCodeWindowContent, parent: WindowHandle?, cancel: @escaping @MainActor () -> Void)
        -> (@MainActor () -> Void)
    {
        let window = DeviceCodeWindow(content, parent: parent.flatMap { wvh_window($0.address) }, cancel: cancel)
        return { window.close() }
    }

    private init(_ content: DeviceCodeWindowContent, parent: LibraryWindow.Window?, cancel: @escaping @MainActor () -> Void) {
        self.cancel = cancel
        expiresOn = content.expiresOn
        widgets = DeviceCodeWindowWidgets(title: Self.title)
        reference = GObjectRef(retaining: widgets.window)

        let instructions = Self.label(content.instructions)
        widgets.wrap(instructions, widthInCharacters: 52)
        widgets.append(instructions)

        let caption = Self.label(Self.codeCaption)
        gtk_widget_set_halign(caption, GTK_ALIGN_CENTER)
        gtk_widget_set_margin_top(caption, 12)
        widgets.append(caption)
        let code = Self.label(content.userCode)
        gtk_label_set_selectable(wvh_label(code), 1)
        Self.showAsCode(code)
        gtk_widget_set_halign(code, GTK_ALIGN_CENTER)
        wvh_set_accessible_label(code, ShownText.tr("accessible name", "Your code: {code}", ["code": Self.spelledOut(content.userCode)]))
        widgets.append(code)

        if let rows = content.qrCode, let pixbuf = Self.pixbuf(of: rows) {
            let picture = widgets.makePicture(pixbuf)
            g_object_unref(UnsafeMutableRawPointer(pixbuf))  // the picture holds its own reference
            wvh_set_accessible_label(picture, ShownText.tr("accessible name", "QR code of {link}", ["link": content.link.absoluteString]))
            gtk_widget_set_halign(picture, GTK_ALIGN_CENTER)
            gtk_widget_set_margin_top(picture, 8)
            let scan = Self.label(Self.scanCaption)
            gtk_widget_set_halign(scan, GTK_ALIGN_CENTER)
            widgets.append(scan)
            widgets.append(picture)
        }

        let link = gtk_link_button_new(content.link.absoluteString)!
        gtk_widget_set_halign(link, GTK_ALIGN_CENTER)
        widgets.append(link)

        timeLeft = Self.label("")
        gtk_widget_set_halign(timeLeft, GTK_ALIGN_CENTER)
        widgets.append(timeLeft)

        LibraryWindow.onCloseRequest(of: widgets.window, cancelButton: widgets.cancelButton, connections) { [weak self] in
            self?.personCancelled()
        }
        LibraryWindow.onDestroyedElsewhere(of: widgets.window, connections) { [weak self] in
            self?.reference = nil  // destroyed with its parent, say
            self?.personCancelled()
        }
        LibraryWindow.place(widgets.window, over: parent)
        ShownDirection.apply(to: wvh_widget(widgets.window))
        widgets.present()
        // On open the focus is on the code (a screen reader says it), not selected.
        gtk_widget_grab_focus(code)
        gtk_label_select_region(wvh_label(code), 0, 0)
        tick()
    }

    /// Closes the window (the sign-in ended). Calling it again does nothing.
    func close() {
        closed = true
        cancel = nil
        connections.disconnectAll()
        guard let reference else { return }
        self.reference = nil
        LibraryWindow.destroy(reference.pointer)
    }

    private func personCancelled() {
        guard let cancel else { return }
        self.cancel = nil
        cancel()
    }

    /// The time left, once a second until the window closes.
    private func tick() {
        guard !closed else { return }
        let seconds = Int(expiresOn.timeIntervalSinceNow.rounded(.down))
        gtk_label_set_text(wvh_label(timeLeft), seconds > 0 ? Self.timeLeftText(seconds: seconds) : Self.expiredText)
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: .seconds(1))
            self?.tick()
        }
    }

    /// "Time left: 14:59" (minutes and seconds: no plural in any language).
    static func timeLeftText(seconds: Int) -> String {
        ShownText.tr("device code", "Time left: {time}", ["time": String(format: "%d:%02d", seconds / 60, seconds % 60)])
    }

    /// "W D J B, dash, M J H T": what a screen reader says for the code, one character at a time.
    static func spelledOut(_ code: String) -> String {
        let dash = ShownText.tr("accessible name", "dash")
        return code.map { $0 == "-" ? ", \(dash)," : String($0) }.joined(separator: " ")
    }

    private static func label(_ text: String) -> UnsafeMutablePointer<GtkWidget> {
        let label = gtk_label_new(text)!
        gtk_label_set_xalign(wvh_label(label), 0)
        return label
    }

    /// Two and a half times the size, bold, monospace, spaced: each character tells apart from
    /// its neighbours (0 and O, 1 and l).
    private static func showAsCode(_ label: UnsafeMutablePointer<GtkWidget>) {
        let attributes = pango_attr_list_new()
        defer { pango_attr_list_unref(attributes) }  // the label holds its own reference
        pango_attr_list_insert(attributes, pango_attr_scale_new(2.5))
        pango_attr_list_insert(attributes, pango_attr_weight_new(PANGO_WEIGHT_BOLD))
        pango_attr_list_insert(attributes, pango_attr_family_new("monospace"))
        pango_attr_list_insert(attributes, pango_attr_letter_spacing_new(gint(4 * PANGO_SCALE)))
        gtk_label_set_attributes(wvh_label(label), attributes)
    }

    /// The QR code as black modules on white, `module` pixels each, with the 4-module quiet zone
    /// scanners need.
    static func pixbuf(of rows: [[Bool]], module: Int = 5, quietZone: Int = 4) -> OpaquePointer? {
        let size = (rows.count + 2 * quietZone) * module
        guard !rows.isEmpty, let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, gint(size), gint(size)),
            let pixels = gdk_pixbuf_get_pixels(pixbuf)
        else { return nil }
        gdk_pixbuf_fill(pixbuf, 0xFFFF_FFFF)
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        for (y, row) in rows.enumerated() {
            for (x, dark) in row.enumerated() where dark {
                for dy in 0..<module {
                    let line = pixels + ((y + quietZone) * module + dy) * stride
                    for dx in 0..<module {
                        let pixel = line + ((x + quietZone) * module + dx) * 3
                        (pixel[0], pixel[1], pixel[2]) = (0, 0, 0)
                    }
                }
            }
        }
        return pixbuf
    }
}
