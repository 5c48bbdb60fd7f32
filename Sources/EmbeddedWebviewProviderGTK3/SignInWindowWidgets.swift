import CGLib
import CWebKitGTK3
import GLibSupport
import WebviewHost
import WebviewHostGTK3

/// The GTK 3 widgets of a ``SignInWindow``: a toplevel with a dialog's type hint, a header bar
/// ("Cancel" at its start, the title, the page's host as subtitle), and the view under an overlay
/// holding the load indicator (a spinner and a word in an on-screen-display bubble). Centred on
/// the parent.
/// The window owns every widget here; ``SignInWindow`` holds the window's reference.
@MainActor
struct SignInWindowWidgets {
    let window: WebKitDifferences.Window
    let webView: WebKitDifferences.WebView
    private let header: UnsafeMutablePointer<GtkHeaderBar>
    /// "Cancel", at the header bar's start: a dialog's way out (GNOME's dialogs have no close button).
    private let cancelButton: WebKitDifferences.Widget
    private let indicator: WebKitDifferences.Widget
    private let spinner: UnsafeMutablePointer<GtkSpinner>
    private let overlay: WebKitDifferences.Widget
    /// "Continue in your browser", at the header bar's end; hidden unless the session can hand over.
    private let browserButton: WebKitDifferences.Widget

    init(webView: WebKitDifferences.WebView) {
        self.webView = webView
        window = wvh_window(wvh_dialog_window_new())
        gtk_window_set_type_hint(window, GDK_WINDOW_TYPE_HINT_DIALOG)

        // Client-side decorations: the view has no address bar, so the header bar shows where
        // the person types a password. A dialog's "Cancel" rather than the title bar's close
        // button, whose icon alone loads GTK's icon theme (about 2 MiB; Tests/Benchmarks/README.md).
        let headerWidget = gtk_header_bar_new()!
        let header = wvh_header_bar(headerWidget)!
        gtk_window_set_titlebar(window, headerWidget)
        self.header = header
        let cancelButton = gtk_button_new_with_mnemonic(LibraryWindow.cancelLabel)!
        nameForScreenReaders(cancelButton, label: LibraryWindow.cancelLabel)
        gtk_header_bar_pack_start(header, cancelButton)
        self.cancelButton = cancelButton
        let browserButton = gtk_button_new_with_mnemonic(SignInWindow.continueInBrowserLabel)!
        nameForScreenReaders(browserButton, label: SignInWindow.continueInBrowserLabel)
        gtk_widget_set_tooltip_text(browserButton, SignInWindow.continueInBrowserTooltip)
        gtk_widget_set_no_show_all(browserButton, 1)
        gtk_header_bar_pack_end(header, browserButton)
        self.browserButton = browserButton

        let overlay = gtk_overlay_new()!
        gtk_container_add(wvh_container(overlay), wvh_widget(webView))
        let box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 10)!
        gtk_style_context_add_class(gtk_widget_get_style_context(box), "osd")
        gtk_widget_set_halign(box, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(box, GTK_ALIGN_CENTER)
        let (spinner, label) = Self.makeIndicatorContent()
        gtk_container_add(wvh_container(box), spinner)
        gtk_container_add(wvh_container(box), label)
        gtk_widget_show_all(box)
        gtk_widget_set_no_show_all(box, 1)
        gtk_widget_hide(box)
        gtk_overlay_add_overlay(wvh_overlay(overlay), box)
        indicator = box
        self.spinner = wvh_spinner(spinner)
        gtk_container_add(wvh_container(window), overlay)
        self.overlay = overlay
    }

    /// GTK 3's part of ``SignInWindow/prepareAhead(size:)``, before the window is realized: its
    /// widgets are marked shown (nothing is mapped while the window is not). GTK 3 applies the
    /// session's size when the window is shown, whatever `size` it was prepared at.
    func prepareToRealize(size: WindowSize) {
        gtk_widget_show_all(wvh_widget(header))
        gtk_widget_show_all(overlay)
    }

    /// Calls `handler` for "Cancel", the window manager's close (`delete-event`) and Escape
    /// (`key-press-event`), which then do nothing more: the session decides what happens to the window.
    func onCloseRequest(_ connections: SignalConnections, _ handler: @escaping @MainActor () -> Void) {
        LibraryWindow.onCloseRequest(of: window, cancelButton: cancelButton, connections, handler)
    }

    /// F6 and Ctrl+Tab (with Shift too) move the keyboard focus between the page and the header
    /// bar's buttons, as in GNOME's own apps (and as in GTK 4, where Tab alone stays in the page).
    /// The window sees key presses before the page.
    func onSwitchBetweenPageAndHeader(_ connections: SignalConnections) {
        let window = window, webView = webView, cancelButton = cancelButton
        connections.connect(window, "key-press-event", .pointerReturningBool { (event: UnsafeMutablePointer<GdkEvent>?) in
            guard let event else { return false }
            return Self.switchBetweenPageAndHeader(
                keyval: wvh_event_key_keyval(event), control: wvh_event_key_state(event) & GDK_CONTROL_MASK.rawValue != 0,
                in: window, page: webView, headerButton: cancelButton)
        })
    }

    /// Calls `handler` when someone else destroys the window (with its parent, say): GTK 3 emits
    /// `destroy` at once.
    func onDestroyedElsewhere(_ connections: SignalConnections, _ handler: @escaping @MainActor () -> Void) {
        LibraryWindow.onDestroyedElsewhere(of: window, connections, handler)
    }

    /// Whether GTK still lists the window (in GTK 3, `destroy` says when it is gone).
    var isListed: Bool { LibraryWindow.isListed(window) }

    func configure(title: String, width: Int, height: Int, parent: WebKitDifferences.Window?) {
        gtk_window_set_title(window, title)
        gtk_header_bar_set_title(header, title)
        gtk_window_set_default_size(window, gint(width), gint(height))
        LibraryWindow.place(window, over: parent)
    }

    func present() {
        gtk_widget_show_all(wvh_widget(window))
        gtk_window_present(window)
    }

    func hide() {
        gtk_widget_hide(wvh_widget(window))
    }

    /// Shows or hides "Continue in your browser".
    func showBrowserButton(_ visible: Bool) {
        gtk_widget_set_visible(browserButton, visible ? 1 : 0)
    }

    /// Calls `handler` when the person clicks "Continue in your browser".
    func onBrowserButton(_ connections: SignalConnections, _ handler: @escaping @MainActor () -> Void) {
        connections.connect(browserButton, "clicked", .plain { handler() })
    }

    func setSubtitle(_ text: String) {
        gtk_header_bar_set_subtitle(header, text)
        wvh_set_accessible_description(wvh_widget(window), text)
    }

    func showIndicator(_ visible: Bool) {
        if visible {
            gtk_spinner_start(spinner)
            gtk_widget_show(indicator)
        } else {
            gtk_spinner_stop(spinner)
            gtk_widget_hide(indicator)
        }
    }
}
