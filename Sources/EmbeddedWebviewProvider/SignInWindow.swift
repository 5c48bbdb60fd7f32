import Foundation
import CGLib
import CWebKitGTK
import GLibSupport
import WebviewHost

/// The window the library owns for a sign-in: a GTK 3 toplevel holding a `WebKitWebView` under a
/// load indicator. Modal over, transient for and centred on the parent window when there is one.
/// Escape, the close button and the window being destroyed by someone else all call `onClose`.
@MainActor
final class SignInWindow {
    /// How long a load runs before the indicator shows, so fast pages do not flash it.
    static let indicatorDelay: Duration = .milliseconds(300)

    let window: UnsafeMutableRawPointer
    let webView: UnsafeMutableRawPointer
    private let indicator: UnsafeMutableRawPointer
    private let header: UnsafeMutableRawPointer
    private let spinner: UnsafeMutableRawPointer
    private let connections = SignalConnections()
    private var loadGeneration = 0
    private var destroyed = false

    /// What the window's close button, Escape and its destruction by someone else call; set by
    /// ``configure(parameters:onClose:)``.
    private var onClose: (@MainActor () -> Void)?

    /// Builds the window and its view, hidden and not yet tied to a session (a prewarmed window
    /// waits like this); ``configure(parameters:onClose:)`` then makes it a session's.
    init(context: WebKitToolkit.DataStore) {
        window = UnsafeMutableRawPointer(gtk_window_new(GTK_WINDOW_TOPLEVEL)!)
        g_object_ref(window)  // ours until destroy(), whoever destroys the window first
        let gtkWindow = wvh_window(window)
        gtk_window_set_type_hint(gtkWindow, GDK_WINDOW_TYPE_HINT_DIALOG)

        // A header bar (client-side decorations): title, close button, and the page's host, since
        // the view has no address bar and the person should see where they type a password.
        let header = gtk_header_bar_new()!
        gtk_header_bar_set_show_close_button(wvh_header_bar(header), 1)
        gtk_window_set_titlebar(gtkWindow, header)
        self.header = UnsafeMutableRawPointer(header)

        let overlay = gtk_overlay_new()!
        webView = WebKitToolkit.makeWebView(in: context)
        // Windows a page opens without a gesture (a timer's window.open, a script's click on a
        // target=_blank link) would be dropped by WebKit's popup blocker before any signal, and a
        // sign-in that continues in such a window would never end. Allowed, they reach `create`,
        // which keeps them in this view. The view's settings are its own (not shared).
        webkit_settings_set_javascript_can_open_windows_automatically(
            webkit_web_view_get_settings(wvh_web_view(webView)), 1)
        gtk_container_add(wvh_container(overlay), wvh_widget(webView))

        // The load indicator: a spinner and a word, in an on-screen-display bubble.
        let box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 10)!
        gtk_style_context_add_class(gtk_widget_get_style_context(box), "osd")
        gtk_widget_set_halign(box, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(box, GTK_ALIGN_CENTER)
        let spinnerWidget = gtk_spinner_new()!
        gtk_widget_set_size_request(spinnerWidget, 24, 24)
        let label = gtk_label_new("Loading…")!
        // Margins on the children: the bubble's background covers them, unlike a border width.
        for (widget, start, end) in [(spinnerWidget, gint(18), gint(0)), (label, gint(0), gint(20))] {
            gtk_widget_set_margin_start(widget, start)
            gtk_widget_set_margin_end(widget, end)
            gtk_widget_set_margin_top(widget, 14)
            gtk_widget_set_margin_bottom(widget, 14)
            gtk_container_add(wvh_container(box), widget)
        }
        gtk_widget_show_all(box)
        gtk_widget_set_no_show_all(box, 1)
        gtk_widget_hide(box)
        gtk_overlay_add_overlay(wvh_overlay(overlay), box)
        indicator = UnsafeMutableRawPointer(box)
        spinner = UnsafeMutableRawPointer(spinnerWidget)
        gtk_container_add(wvh_container(window), overlay)

        connections.connect(window, "delete-event", .pointerReturningBool { [weak self] _ in
            self?.onClose?()
            return true  // the session ends; dismiss() destroys the window
        })
        connections.connect(window, "key-press-event", .pointerReturningBool { [weak self] event in
            guard let event, wvh_event_key_keyval(event) == guint(GDK_KEY_Escape) else { return false }
            self?.onClose?()
            return true
        })
        connections.connect(window, "destroy", .plain { [weak self] in
            guard let self, !self.destroyed else { return }
            self.destroyed = true  // destroyed with its parent, say
            self.onClose?()
        })
    }

    /// Gives the window the session's title, size and parent (modal over, transient for and
    /// centred on it), and what closing it does.
    func configure(parameters: WebviewParameters, onClose: @escaping @MainActor () -> Void) {
        self.onClose = onClose
        let gtkWindow = wvh_window(window)
        gtk_window_set_title(gtkWindow, parameters.windowTitle)
        gtk_header_bar_set_title(wvh_header_bar(header), parameters.windowTitle)
        gtk_window_set_default_size(
            gtkWindow, gint(max(parameters.windowSize.width, 1)), gint(max(parameters.windowSize.height, 1)))
        if let parent = parameters.parentWindow {
            gtk_window_set_transient_for(gtkWindow, wvh_window(parent.pointer))
            gtk_window_set_modal(gtkWindow, 1)
            gtk_window_set_destroy_with_parent(gtkWindow, 1)
            gtk_window_set_position(gtkWindow, GTK_WIN_POS_CENTER_ON_PARENT)
        } else {
            gtk_window_set_position(gtkWindow, GTK_WIN_POS_CENTER)
        }
    }

    /// Whether the window still exists (nobody destroyed it, e.g. with a parent it was transient for).
    var isAlive: Bool { !destroyed }

    func show() {
        gtk_widget_show_all(wvh_widget(window))
        gtk_window_present(wvh_window(window))
    }

    /// A page started loading: show the indicator if it is still loading after ``indicatorDelay``.
    func loadStarted() {
        loadGeneration += 1
        let generation = loadGeneration
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: Self.indicatorDelay)
            guard let self, !self.destroyed, self.loadGeneration == generation else { return }
            gtk_spinner_start(wvh_spinner(self.spinner))
            gtk_widget_show(wvh_widget(self.indicator))
        }
    }

    /// Shows the host of the page in the header bar, saying when the connection is not encrypted.
    func showPage(_ url: URL) {
        guard !destroyed, let host = url.host else { return }
        let place = url.port.map { "\(host):\($0)" } ?? host
        let subtitle = url.scheme?.lowercased() == "https" ? place : "\(place) (not encrypted)"
        gtk_header_bar_set_subtitle(wvh_header_bar(header), subtitle)
    }

    /// The load finished, failed or was handed elsewhere: hide the indicator.
    func loadEnded() {
        loadGeneration += 1
        guard !destroyed else { return }
        gtk_spinner_stop(wvh_spinner(spinner))
        gtk_widget_hide(wvh_widget(indicator))
    }

    /// Hides the window (its handlers stay until ``destroy()``).
    func hide() {
        guard !destroyed else { return }
        gtk_widget_hide(wvh_widget(window))
    }

    /// Disconnects the window's handlers and destroys it (`gtk_widget_destroy`). Calling it again does nothing.
    func destroy() {
        connections.disconnectAll()
        guard !destroyed else {
            releaseWindow()
            return
        }
        destroyed = true
        gtk_widget_destroy(wvh_widget(window))
        releaseWindow()
    }

    private var released = false
    private func releaseWindow() {
        guard !released else { return }
        released = true
        g_object_unref(window)
    }
}
