import CGLib
import CWebKitGTK6
import Foundation
import GLibSupport
import WebviewHost

/// The window the library owns for a sign-in: a GTK 4 toplevel holding a `WebKitWebView` under a
/// load indicator, with a header bar showing the title and the page's host. Modal over and
/// transient for the parent window when there is one (GTK 4 leaves placement to the compositor,
/// which centres a modal dialog on its parent). Escape, the close button and the window being
/// destroyed by someone else all call `onClose`.
@MainActor
final class SignInWindow {
    /// How long a load runs before the indicator shows, so fast pages do not flash it.
    static let indicatorDelay: Duration = .milliseconds(300)

    let window: UnsafeMutableRawPointer
    let webView: UnsafeMutableRawPointer
    private let indicator: UnsafeMutableRawPointer
    private let title: UnsafeMutableRawPointer
    private let subtitle: UnsafeMutableRawPointer
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
        window = UnsafeMutableRawPointer(gtk_window_new()!)
        g_object_ref(window)  // ours until destroy(), whoever destroys the window first
        let gtkWindow = wvh_window(window)

        // A header bar: title, close button, and the page's host under the title, since the
        // view has no address bar and the person should see where they type a password.
        let header = gtk_header_bar_new()!
        let titles = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_widget_set_valign(titles, GTK_ALIGN_CENTER)
        let titleLabel = gtk_label_new(nil)!
        gtk_widget_add_css_class(titleLabel, "title")
        let subtitleLabel = gtk_label_new(nil)!
        gtk_widget_add_css_class(subtitleLabel, "subtitle")
        gtk_widget_set_visible(subtitleLabel, 0)
        for label in [titleLabel, subtitleLabel] {
            gtk_label_set_ellipsize(wvh_label(label), PANGO_ELLIPSIZE_END)
            gtk_box_append(wvh_box(titles), label)
        }
        gtk_header_bar_set_title_widget(wvh_header_bar(header), titles)
        gtk_window_set_titlebar(gtkWindow, header)
        title = UnsafeMutableRawPointer(titleLabel)
        subtitle = UnsafeMutableRawPointer(subtitleLabel)

        let overlay = gtk_overlay_new()!
        webView = WebKitToolkit.makeWebView(in: context)
        // Windows a page opens without a gesture (a timer's window.open, a script's click on a
        // target=_blank link) would be dropped by WebKit's popup blocker before any signal, and a
        // sign-in that continues in such a window would never end. Allowed, they reach `create`,
        // which keeps them in this view. The view's settings are its own (not shared).
        webkit_settings_set_javascript_can_open_windows_automatically(
            webkit_web_view_get_settings(wvh_web_view(webView)), 1)
        gtk_overlay_set_child(wvh_overlay(overlay), wvh_widget(webView))

        // The load indicator: a spinner and a word, in an on-screen-display bubble.
        let box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 10)!
        gtk_widget_add_css_class(box, "osd")
        gtk_widget_set_halign(box, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(box, GTK_ALIGN_CENTER)
        let spinnerWidget = gtk_spinner_new()!
        gtk_widget_set_size_request(spinnerWidget, 24, 24)
        let label = gtk_label_new("Loading…")!
        // Margins on the children: the bubble's background covers them.
        for (widget, start, end) in [(spinnerWidget, gint(18), gint(0)), (label, gint(0), gint(20))] {
            gtk_widget_set_margin_start(widget, start)
            gtk_widget_set_margin_end(widget, end)
            gtk_widget_set_margin_top(widget, 14)
            gtk_widget_set_margin_bottom(widget, 14)
            gtk_box_append(wvh_box(box), widget)
        }
        gtk_widget_set_visible(box, 0)
        gtk_overlay_add_overlay(wvh_overlay(overlay), box)
        indicator = UnsafeMutableRawPointer(box)
        spinner = UnsafeMutableRawPointer(spinnerWidget)
        gtk_window_set_child(gtkWindow, overlay)

        connections.connect(window, "close-request", .returningBool { [weak self] in
            self?.onClose?()
            return true  // the session ends; dismiss() destroys the window
        })
        let keys = gtk_event_controller_key_new()!
        gtk_widget_add_controller(wvh_widget(window), keys)  // the window owns it
        connections.connect(UnsafeMutableRawPointer(keys), "key-pressed", .keyPressed { [weak self] keyval, _ in
            guard keyval == UInt32(GDK_KEY_Escape) else { return false }
            self?.onClose?()
            return true
        })
        connections.connect(window, "destroy", .plain { [weak self] in
            guard let self, !self.destroyed else { return }
            self.destroyed = true
            self.onClose?()
        })
        // Destroyed by someone else (with its parent, say): GTK 4's gtk_window_destroy hides the
        // window, takes it off the toplevel list and unrealizes it, but emits `destroy` only on the
        // last reference, and this object holds one until destroy(). `unrealize` once the window
        // is off the list is that moment (without it the session went on in a window no one could
        // see, and never ended). GTK keeps pointing at a parent that destroyed the window with it
        // and would reach for it when the window is finally disposed, after the parent is gone:
        // let go of it now, while the parent still exists.
        connections.connect(window, "unrealize", .plain { [weak self] in
            guard let self, !self.destroyed, !self.isListed else { return }
            self.destroyed = true
            gtk_window_set_transient_for(wvh_window(self.window), nil)
            self.onClose?()
        })
    }

    /// Whether GTK still lists the window among its toplevels (gtk_window_destroy unlists it).
    private var isListed: Bool {
        let list = gtk_window_list_toplevels()
        defer { g_list_free(list) }
        var node = list
        while let current = node {
            if current.pointee.data == window { return true }
            node = current.pointee.next
        }
        return false
    }

    /// Gives the window the session's title, size and parent (modal over and transient for
    /// it), and what closing it does.
    func configure(parameters: WebviewParameters, onClose: @escaping @MainActor () -> Void) {
        self.onClose = onClose
        let gtkWindow = wvh_window(window)
        gtk_window_set_title(gtkWindow, parameters.windowTitle)
        gtk_label_set_text(wvh_label(title), parameters.windowTitle)
        gtk_window_set_default_size(
            gtkWindow, gint(max(parameters.windowSize.width, 1)), gint(max(parameters.windowSize.height, 1)))
        if let parent = parameters.parentWindow {
            gtk_window_set_transient_for(gtkWindow, wvh_window(parent.pointer))
            gtk_window_set_modal(gtkWindow, 1)
            gtk_window_set_destroy_with_parent(gtkWindow, 1)
        }
    }

    /// Whether the window still exists (nobody destroyed it, e.g. with a parent it was transient
    /// for; a hidden prewarmed window is never realized, so only the toplevel list tells).
    var isAlive: Bool { !destroyed && isListed }

    func show() {
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
            gtk_widget_set_visible(wvh_widget(self.indicator), 1)
        }
    }

    /// Shows the host of the page in the header bar, saying when the connection is not encrypted.
    func showPage(_ url: URL) {
        guard !destroyed, let host = url.host else { return }
        let place = url.port.map { "\(host):\($0)" } ?? host
        let text = url.scheme?.lowercased() == "https" ? place : "\(place) (not encrypted)"
        gtk_label_set_text(wvh_label(subtitle), text)
        gtk_widget_set_visible(wvh_widget(subtitle), 1)
    }

    /// The load finished, failed or was handed elsewhere: hide the indicator.
    func loadEnded() {
        loadGeneration += 1
        guard !destroyed else { return }
        gtk_spinner_stop(wvh_spinner(spinner))
        gtk_widget_set_visible(wvh_widget(indicator), 0)
    }

    /// Hides the window (its handlers stay until ``destroy()``).
    func hide() {
        guard !destroyed else { return }
        gtk_widget_set_visible(wvh_widget(window), 0)
    }

    /// Disconnects the window's handlers and destroys it (`gtk_window_destroy`). Calling it again does nothing.
    func destroy() {
        connections.disconnectAll()
        guard !destroyed else {
            releaseWindow()
            return
        }
        destroyed = true
        gtk_window_destroy(wvh_window(window))
        releaseWindow()
    }

    private var released = false
    private func releaseWindow() {
        guard !released else { return }
        released = true
        g_object_unref(window)
    }
}
