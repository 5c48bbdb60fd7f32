import CGLib
import CWebKitGTK4
import GLibSupport
import WebviewHost

/// The GTK 4 widgets of a ``DeviceCodeWindow``: a toplevel with a header bar ("Cancel" at its
/// start, the title, no window controls, as the sign-in window) and a vertical box the window's
/// content is appended to.
@MainActor
struct DeviceCodeWindowWidgets {
    let window: LibraryWindow.Window
    let cancelButton: LibraryWindow.Widget
    private let content: LibraryWindow.Widget

    init(title: String) {
        window = wvh_window(wvh_dialog_window_new())
        gtk_window_set_title(window, title)
        gtk_window_set_resizable(window, 0)
        let header = gtk_header_bar_new()!
        gtk_header_bar_set_show_title_buttons(wvh_header_bar(header), 0)
        cancelButton = gtk_button_new_with_mnemonic(LibraryWindow.cancelLabel)!
        nameForScreenReaders(cancelButton, label: LibraryWindow.cancelLabel)
        gtk_widget_add_css_class(cancelButton, "flat")
        gtk_header_bar_pack_start(wvh_header_bar(header), cancelButton)
        gtk_window_set_titlebar(window, header)
        content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        for side in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
            side(content, 24)
        }
        gtk_window_set_child(window, content)
    }

    func append(_ widget: LibraryWindow.Widget) {
        gtk_box_append(wvh_box(content), widget)
    }

    func wrap(_ label: LibraryWindow.Widget, widthInCharacters: Int32) {
        gtk_label_set_wrap(wvh_label(label), 1)
        gtk_label_set_max_width_chars(wvh_label(label), widthInCharacters)
    }

    /// A picture of `pixbuf` at its own size (it takes a reference).
    func makePicture(_ pixbuf: OpaquePointer) -> LibraryWindow.Widget {
        let picture = gtk_picture_new_for_pixbuf(pixbuf)!
        gtk_widget_set_size_request(picture, gdk_pixbuf_get_width(pixbuf), gdk_pixbuf_get_height(pixbuf))
        return picture
    }

    func present() {
        gtk_window_present(window)
    }
}
