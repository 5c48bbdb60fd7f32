#if WEBKITGTK_6
import CWebKitGTK4
import WebviewHostGTK4
#else
import CWebKitGTK3
import WebviewHostGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// A yes-or-no question over the sign-in window (or the window holding a caller's view): "Open
/// mailto link?", "Continue in your browser?"; with `content` under its texts, a question that
/// asks for more (which certificate, a PIN, a proxy's password).
///
/// A modal `GtkMessageDialog` transient for `window` (on its own without one: a proxy's question
/// asked before any window), answered through its `response` signal
/// (never `gtk_dialog_run`: a nested main loop would stall the main actor). `answer` is called
/// at most once, on the main thread, with `true` for the accept button; closing the dialog and
/// Escape answer `false`; ``destroy()`` (the session ended) closes it without calling `answer`.
@MainActor
final class SignInQuestion {
    /// The dialog's reference: ours until ``destroy()``, whoever destroys the dialog first.
    private var dialog: GObjectRef<WebKitDifferences.Widget>?
    private let connections = SignalConnections()
    private var finished = false

    /// Shows the question (`gtk_message_dialog_new`, `gtk_widget_show`). Enter answers with the
    /// default button: `acceptByDefault` false means a deliberate click is needed to accept. With
    /// no `accept`, the question only tells (a step to take, an error) and Cancel is its one button.
    /// `focusesCancel`: the keyboard starts on Cancel (default: the dialog's first widget, which in
    /// a list is a row, and a row the focus enters is selected).
    init(
        title: String, detail: String, over window: WebKitDifferences.Window?, cancel: String, accept: String?,
        acceptByDefault: Bool, content: WebKitDifferences.Widget? = nil, focusesCancel: Bool = false,
        answer: @escaping @MainActor (_ accepted: Bool) -> Void
    ) {
        let widget = wvh_question_dialog_new(window, title)!
        dialog = GObjectRef(retaining: widget)
        wvh_message_dialog_set_secondary_text(widget, detail)
        if let content { WebKitDifferences.appendToQuestion(content, wvh_message_dialog_get_message_area(widget)) }
        gtk_window_set_title(wvh_window(widget), title)
        let buttons = wvh_dialog(widget)
        let cancelButton: UnsafeMutablePointer<GtkWidget>? = gtk_dialog_add_button(buttons, cancel, GTK_RESPONSE_CANCEL.rawValue)
        nameForScreenReaders(cancelButton!, label: cancel)
        if let accept { nameForScreenReaders(gtk_dialog_add_button(buttons, accept, GTK_RESPONSE_ACCEPT.rawValue), label: accept) }
        gtk_dialog_set_default_response(
            buttons, acceptByDefault && accept != nil ? GTK_RESPONSE_ACCEPT.rawValue : GTK_RESPONSE_CANCEL.rawValue)
        connections.connect(widget, "response", .enumValue { [weak self] response in
            guard let self, !self.finished else { return }
            self.finished = true
            let accepted = Int32(bitPattern: response) == GTK_RESPONSE_ACCEPT.rawValue
            self.destroy()
            answer(accepted)
        })
        ShownDirection.apply(to: widget)
        // Where the keyboard starts (set before the dialog shows, which would pick its first widget).
        if focusesCancel, let cancelButton { gtk_window_set_focus(wvh_window(widget), cancelButton) }
        gtk_widget_show(widget)
        gtk_window_present(wvh_window(widget))
    }

    /// Answers as the accept button (`true`) or Cancel would: a list's activated row, say.
    func respond(accepted: Bool) {
        guard let dialog, !finished else { return }
        wvh_dialog_respond(dialog.pointer, accepted ? GTK_RESPONSE_ACCEPT.rawValue : GTK_RESPONSE_CANCEL.rawValue)
    }

    /// Whether the accept button (and Enter, when it is the default) can answer now: a chooser
    /// with nothing chosen yet cannot.
    func setAcceptable(_ acceptable: Bool) {
        guard let dialog, !finished else { return }
        gtk_dialog_set_response_sensitive(wvh_dialog(dialog.pointer), GTK_RESPONSE_ACCEPT.rawValue, acceptable ? 1 : 0)
    }

    /// Closes the question without an answer (the session ended). Calling it again does nothing.
    func destroy() {
        finished = true
        connections.disconnectAll()
        guard let dialog else { return }
        self.dialog = nil
        WebKitDifferences.destroyWindow(dialog.pointer)
    }

    /// A field for a PIN (a token's, a security key's): hidden as typed, Return answers, "PIN"
    /// shown in it while empty and said by a screen reader.
    static func pinEntry() -> WebKitDifferences.Widget {
        let entry = gtk_entry_new()!
        gtk_entry_set_visibility(wvh_entry(entry), 0)
        gtk_entry_set_activates_default(wvh_entry(entry), 1)
        gtk_entry_set_input_purpose(wvh_entry(entry), GTK_INPUT_PURPOSE_PIN)
        let field = ShownText.tr("field", "PIN")
        gtk_entry_set_placeholder_text(wvh_entry(entry), field)
        wvh_set_accessible_description(entry, field)
        return entry
    }

    /// Text from a page cut to 120 characters, so a page cannot fill the dialog.
    static func shortened(_ text: String) -> String {
        text.count > 120 ? String(text.prefix(119)) + "…" : text
    }
}
