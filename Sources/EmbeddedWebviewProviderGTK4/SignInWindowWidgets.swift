import CGLib
import CWebKitGTK4
import GLibSupport
import WebviewHost
import WebviewHostGTK4

/// The GTK 4 widgets of a ``SignInWindow``: a toplevel with a header bar ("Cancel" at its start,
/// the title, and the page's host under it: GTK 4's header bar has no subtitle of its own), and
/// the view under an overlay holding the load indicator (a spinner and a word in an
/// on-screen-display bubble).
/// GTK 4 leaves placement to the compositor, which centres a modal dialog on its parent.
/// The window owns every widget here; ``SignInWindow`` holds the window's reference.
@MainActor
struct SignInWindowWidgets {
    let window: WebKitDifferences.Window
    let webView: WebKitDifferences.WebView
    private let title: OpaquePointer  // GtkLabel * (final in GTK 4)
    private let subtitle: OpaquePointer  // GtkLabel *
    private let indicator: WebKitDifferences.Widget
    private let spinner: OpaquePointer  // GtkSpinner * (final in GTK 4)
    /// "Continue in your browser", at the header bar's end; hidden unless the session can hand over.
    private let browserButton: WebKitDifferences.Widget
    /// "Cancel", at the header bar's start: a dialog's way out (GNOME's dialogs have no close button).
    private let cancelButton: WebKitDifferences.Widget

    init(webView: WebKitDifferences.WebView) {
        self.webView = webView
        window = wvh_window(wvh_dialog_window_new())

        // The view has no address bar, so the header bar shows where the person types a password.
        // A dialog's "Cancel" rather than the window controls, and flat buttons as libadwaita
        // draws them in header bars: each raised button or control costs GTK's GL renderer
        // megabytes of shaders on a software renderer (Tests/Benchmarks/README.md).
        let header = gtk_header_bar_new()!
        gtk_header_bar_set_show_title_buttons(wvh_header_bar(header), 0)
        let cancelButton = gtk_button_new_with_mnemonic(LibraryWindow.cancelLabel)!
        nameForScreenReaders(cancelButton, label: LibraryWindow.cancelLabel)
        gtk_widget_add_css_class(cancelButton, "flat")
        gtk_header_bar_pack_start(wvh_header_bar(header), cancelButton)
        self.cancelButton = cancelButton
        let titles = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_widget_set_valign(titles, GTK_ALIGN_CENTER)
        let title = gtk_label_new(nil)!
        gtk_widget_add_css_class(title, "title")
        let subtitle = gtk_label_new(nil)!
        gtk_widget_add_css_class(subtitle, "subtitle")
        gtk_widget_set_visible(subtitle, 0)
        for label in [title, subtitle] {
            gtk_label_set_ellipsize(wvh_label(label), PANGO_ELLIPSIZE_END)
            gtk_box_append(wvh_box(titles), label)
        }
        gtk_header_bar_set_title_widget(wvh_header_bar(header), titles)
        gtk_window_set_titlebar(window, header)
        let browserButton = gtk_button_new_with_mnemonic(SignInWindow.continueInBrowserLabel)!
        nameForScreenReaders(browserButton, label: SignInWindow.continueInBrowserLabel)
        gtk_widget_set_tooltip_text(browserButton, SignInWindow.continueInBrowserTooltip)
        gtk_widget_add_css_class(browserButton, "flat")
        gtk_widget_set_visible(browserButton, 0)
        gtk_header_bar_pack_end(wvh_header_bar(header), browserButton)
        self.browserButton = browserButton
        self.title = wvh_label(title)
        self.subtitle = wvh_label(subtitle)

        let overlay = gtk_overlay_new()!
        gtk_overlay_set_child(wvh_overlay(overlay), wvh_widget(webView))
        wvh_web_view_keep_tab_out_of_internal_widgets(wvh_widget(webView))
        let box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 10)!
        gtk_widget_add_css_class(box, "osd")
        gtk_widget_set_halign(box, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(box, GTK_ALIGN_CENTER)
        let (spinner, label) = Self.makeIndicatorContent()
        gtk_box_append(wvh_box(box), spinner)
        gtk_box_append(wvh_box(box), label)
        gtk_widget_set_visible(box, 0)
        gtk_overlay_add_overlay(wvh_overlay(overlay), box)
        indicator = box
        self.spinner = wvh_spinner(spinner)
        gtk_window_set_child(window, overlay)
    }

    /// GTK 4's part of ``SignInWindow/prepareAhead(size:)``, before the window is realized: on
    /// X11, GTK 4 keeps the size a window was realized with, so `size` is set first.
    func prepareToRealize(size: WindowSize) {
        gtk_window_set_default_size(window, gint(max(size.width, 1)), gint(max(size.height, 1)))
    }

    /// Calls `handler` for "Cancel", the compositor's close (`close-request`) and Escape (a key
    /// controller's `key-pressed`), which then do nothing more: the session decides what happens to
    /// the window.
    func onCloseRequest(_ connections: SignalConnections, _ handler: @escaping @MainActor () -> Void) {
        LibraryWindow.onCloseRequest(of: window, cancelButton: cancelButton, connections, handler)
    }

    /// F6 and Ctrl+Tab (with Shift too) move the keyboard focus between the page and the header
    /// bar's buttons, as in GNOME's own apps. In GTK 4, WebKitGTK 6.0 keeps Tab inside the page
    /// (past its last element Tab goes around to its first), so without this a keyboard never
    /// reaches "Continue in your browser". Taken before the page sees the keys.
    func onSwitchBetweenPageAndHeader(_ connections: SignalConnections) {
        let keys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE)
        gtk_widget_add_controller(wvh_widget(window), keys)  // the window owns it
        let window = window, webView = webView, cancelButton = cancelButton
        connections.connect(keys, "key-pressed", .keyPressed { keyval, modifiers in
            Self.switchBetweenPageAndHeader(
                keyval: keyval, control: modifiers & GDK_CONTROL_MASK.rawValue != 0, in: window, page: webView, headerButton: cancelButton)
        })
    }

    /// Calls `handler` when someone else destroys the window (with its parent, say). GTK 4's
    /// `gtk_window_destroy` hides the window, takes it off the toplevel list and unrealizes it, but
    /// emits `destroy` only on the last reference, which the ``SignInWindow`` holds until it is
    /// done: `unrealize` once the window is off the list is that moment. GTK keeps pointing at a
    /// parent that destroyed the window with it, and would reach for it when the window is finally
    /// disposed, after the parent is gone: the window lets go of it now, while the parent exists.
    func onDestroyedElsewhere(_ connections: SignalConnections, _ handler: @escaping @MainActor () -> Void) {
        LibraryWindow.onDestroyedElsewhere(of: window, connections, handler)
    }

    /// Whether GTK still lists the window among its toplevels (``LibraryWindow/isListed(_:)``).
    var isListed: Bool { LibraryWindow.isListed(window) }

    func configure(title: String, width: Int, height: Int, parent: WebKitDifferences.Window?) {
        gtk_window_set_title(window, title)
        gtk_label_set_text(self.title, title)
        if gtk_widget_get_realized(wvh_widget(window)) != 0 {
            // Realized ahead at another size, which GTK 4 would keep on X11: unrealized, it takes
            // this one when presented.
            var realizedWidth: gint = 0
            var realizedHeight: gint = 0
            gtk_window_get_default_size(window, &realizedWidth, &realizedHeight)
            if realizedWidth != gint(width) || realizedHeight != gint(height) { gtk_widget_unrealize(wvh_widget(window)) }
        }
        gtk_window_set_default_size(window, gint(width), gint(height))
        LibraryWindow.place(window, over: parent)
    }

    func present() {
        gtk_window_present(window)
    }

    func hide() {
        gtk_widget_set_visible(wvh_widget(window), 0)
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
        gtk_label_set_text(subtitle, text)
        wvh_set_accessible_description(wvh_widget(window), text)
        gtk_widget_set_visible(wvh_widget(subtitle.objectAddress), 1)
    }

    func showIndicator(_ visible: Bool) {
        if visible {
            gtk_spinner_start(spinner)
        } else {
            gtk_spinner_stop(spinner)
        }
        gtk_widget_set_visible(indicator, visible ? 1 : 0)
    }
}
