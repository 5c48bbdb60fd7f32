#if WEBKITGTK_6
import CWebKitGTK6
#else
import CWebKitGTK
#endif
import CGLib
import Foundation
import GLibSupport

/// The question the library's sign-in window asks before a page's link hands a URI to another
/// app: "Open mailto link?", naming the app GIO would start, with Cancel (the default) and Open.
///
/// A modal `GtkMessageDialog` transient for the sign-in window, answered through its `response`
/// signal (never `gtk_dialog_run`: a nested main loop would stall the main actor). `answer` is
/// called at most once, on the main thread, with `true` for Open; closing the dialog, Escape and
/// ``destroy()`` (the session ended) are a Cancel that calls nothing.
@MainActor
final class ExternalSchemeQuestion {
    private let dialog: UnsafeMutableRawPointer
    private let connections = SignalConnections()
    private var finished = false

    /// Shows the question for `url` over `window` (`gtk_message_dialog_new`, `gtk_widget_show`).
    init(url: URL, over window: UnsafeMutableRawPointer, answer: @escaping @MainActor (_ open: Bool) -> Void) {
        let scheme = url.scheme?.lowercased() ?? ""
        let handler = g_app_info_get_default_for_uri_scheme(scheme).map { info -> String in
            defer { g_object_unref(UnsafeMutableRawPointer(info)) }
            return g_app_info_get_display_name(info).map { String(cString: $0) } ?? ""
        } ?? ""
        let widget = wvh_question_dialog_new(wvh_window(window), "Open \(scheme) link?")!
        dialog = UnsafeMutableRawPointer(widget)
        g_object_ref(dialog)  // ours until destroy(), whoever destroys the dialog first
        let target = handler.isEmpty ? "another app" : handler
        wvh_message_dialog_set_secondary_text(
            widget,
            "The sign-in page wants to open “\(Self.shortened(url.absoluteString))” in \(target). "
                + "Only open it if you expected this.")
        gtk_window_set_title(wvh_window(dialog), "Open \(scheme) link?")
        gtk_dialog_add_button(wvh_dialog(dialog), "_Cancel", GTK_RESPONSE_CANCEL.rawValue)
        gtk_dialog_add_button(wvh_dialog(dialog), "_Open", GTK_RESPONSE_ACCEPT.rawValue)
        // Enter answers Cancel: opening another app takes a deliberate click.
        gtk_dialog_set_default_response(wvh_dialog(dialog), GTK_RESPONSE_CANCEL.rawValue)
        connections.connect(dialog, "response", .enumValue { [weak self] response in
            guard let self, !self.finished else { return }
            self.finished = true
            let open = Int32(bitPattern: response) == GTK_RESPONSE_ACCEPT.rawValue
            self.destroy()
            answer(open)
        })
        gtk_widget_show(widget)
        gtk_window_present(wvh_window(dialog))
    }

    /// Closes the question without an answer (the session ended). Calling it again does nothing.
    func destroy() {
        finished = true
        connections.disconnectAll()
        guard !released else { return }
        released = true
        WebKitToolkit.destroyWindow(dialog)
        g_object_unref(dialog)
    }

    private var released = false

    /// A URI cut to 120 characters, so a page cannot fill the dialog.
    private static func shortened(_ text: String) -> String {
        text.count > 120 ? String(text.prefix(119)) + "…" : text
    }
}
