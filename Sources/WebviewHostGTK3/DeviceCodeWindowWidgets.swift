import CGLib
import CWebKitGTK3
import GLibSupport
import WebviewHost

/// The GTK 3 widgets of a ``DeviceCodeWindow``: a dialog-type toplevel, a header bar with
/// "Cancel" at its start and the title, and a vertical box the window's content is appended to.
@MainActor
struct DeviceCodeWindowWidgets {
    let window: LibraryWindow.Window
    private let header: UnsafeMutablePointer<GtkHeaderBar>
    let cancelButton: LibraryWindow.Widget
    private let content: LibraryWindow.Widget

    init(title: String) {
        window = wvh_window(wvh_dialog_window_new())
        gtk_window_set_type_hint(window, GDK_WINDOW_TYPE_HINT_DIALOG)
        gtk_window_set_title(window, title)
        gtk_window_set_resizable(window, 0)
        let headerWidget = gtk_header_bar_new()!
        header = wvh_header_bar(headerWidget)
        gtk_header_bar_set_title(header, title)
        gtk_window_set_titlebar(window, headerWidget)
        cancelButton = gtk_button_new_with_mnemonic(LibraryWindow.cancelLabel)!
        nameForScreenReaders(cancelButton, label: LibraryWindow.cancelLabel)
        gtk_header_bar_pack_start(header, cancelButton)
        content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
        for side in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
            side(content, 24)
        }
        gtk_container_add(wvh_container(window), content)
    }

    func append(_ widget: LibraryWindow.Widget) {
        gtk_container_add(wvh_container(content), widget)
    }

    func wrap(_ label: LibraryWindow.Widget, widthInCharacters: Int32) {
        gtk_label_set_line_wrap(wvh_label(label), 1)
        gtk_label_set_max_width_chars(wvh_label(label), widthInCharacters)
    }

    /// An image of `pixbuf` at its own size (it takes a reference).
    func makePicture(_ pixbuf: OpaquePointer) -> LibraryWindow.Widget {
        gtk_image_new_from_pixbuf(pixbuf)
    }

    func present() {
        gtk_widget_show_all(wvh_widget(window))
        gtk_window_present(window)
    }
}
