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

/// The window the library owns for a sign-in: a toplevel holding a `WebKitWebView` under a load
/// indicator, with a header bar showing the title and the page's host. Modal over and transient
/// for the parent window when there is one. "Cancel", Escape, closing the window and the window
/// being destroyed by someone else all call `onClose`.
///
/// What it shows and when is decided here; ``SignInWindowWidgets`` (one per toolkit) builds the
/// GTK 3 or GTK 4 widgets and makes the calls that differ.
@MainActor
final class SignInWindow {
    /// How long a load runs before the indicator shows, so fast pages do not flash it.
    static let indicatorDelay: Duration = .milliseconds(300)

    let window: WebKitDifferences.Window
    let webView: WebKitDifferences.WebView
    private let widgets: SignInWindowWidgets
    /// The window's reference: ours until ``destroy()``, whoever destroys the window first.
    private var reference: GObjectRef<WebKitDifferences.Window>?
    private let connections = SignalConnections()
    private var loadGeneration = 0
    /// What the header bar shows under the title (the page's host).
    private var shownSubtitle: String?
    private var destroyed = false

    /// What "Cancel", Escape, closing the window and its destruction by someone else call; set by
    /// ``configure(parameters:onClose:)``.
    private var onClose: (@MainActor () -> Void)?
    /// What "Continue in your browser" calls; `nil` hides the button.
    private var onContinueInBrowser: (@MainActor () -> Void)?

    /// The header bar button that moves the sign-in to the person's browser.
    static var continueInBrowserLabel: String { ShownText.tr("button", "Continue in your _browser") }
    static var continueInBrowserTooltip: String {
        ShownText.tr("tooltip", "Finish signing in in your web browser (for a passkey or security key, say)")
    }

    /// Builds the window and its view, hidden and not yet tied to a session (a prewarmed window
    /// waits like this); ``configure(parameters:onClose:)`` then makes it a session's.
    init(context: WebKitDifferences.DataStore) {
        widgets = SignInWindowWidgets(webView: WebKitDifferences.makeWebView(in: context))
        window = widgets.window
        webView = widgets.webView
        reference = GObjectRef(retaining: window)
        // Windows a page opens without a gesture (a timer's window.open, a script's click on a
        // target=_blank link) would be dropped by WebKit's popup blocker before any signal, and a
        // sign-in that continues in such a window would never end. Allowed, they reach `create`,
        // which keeps them in this view. The view's settings are its own (not shared).
        webkit_settings_set_javascript_can_open_windows_automatically(webkit_web_view_get_settings(webView), 1)
        widgets.onCloseRequest(connections) { [weak self] in
            self?.onClose?()  // the session ends; dismiss() destroys the window
        }
        widgets.onBrowserButton(connections) { [weak self] in
            self?.onContinueInBrowser?()
        }
        widgets.onSwitchBetweenPageAndHeader(connections)
        widgets.onDestroyedElsewhere(connections) { [weak self] in
            guard let self, !self.destroyed else { return }
            self.destroyed = true  // destroyed with its parent, say
            self.onClose?()
        }
    }

    /// Gives the window the session's title, size and parent (modal over and transient for it),
    /// and what closing it does.
    func configure(parameters: WebviewParameters, onClose: @escaping @MainActor () -> Void) {
        self.onClose = onClose
        widgets.configure(
            title: parameters.windowTitle == WebviewParameters.defaultWindowTitle
                ? ShownText.tr("window title", "Sign in") : parameters.windowTitle,
            width: max(parameters.windowSize.width, 1), height: max(parameters.windowSize.height, 1),
            parent: parameters.parentWindow.flatMap { wvh_window($0.address) })
        ShownDirection.apply(to: wvh_widget(window))
    }

    /// Offers "Continue in your browser" in the header bar, calling `action` when clicked; `nil`
    /// hides the button.
    func offerContinueInBrowser(_ action: (@MainActor () -> Void)?) {
        onContinueInBrowser = action
        guard !destroyed else { return }
        widgets.showBrowserButton(action != nil)
    }

    /// Whether the window still exists (nobody destroyed it, e.g. with a parent it was transient for).
    var isAlive: Bool { !destroyed && widgets.isListed }

    /// For a prewarmed window: realizes and sizes it (at `size`, the size sessions are expected
    /// to ask for), unmapped, so that ``show()`` only maps it (about 2 ms instead of 12 on GTK 3
    /// under Xvfb; see Tests/Benchmarks).
    func prepareAhead(size: WindowSize) {
        widgets.prepareToRealize(size: size)
        gtk_widget_realize(wvh_widget(window))
        gtk_widget_realize(wvh_widget(webView))
        var minimum = GtkRequisition()
        var natural = GtkRequisition()
        gtk_widget_get_preferred_size(wvh_widget(window), &minimum, &natural)
    }

    /// Shows the window with the keyboard focus in the page: the person types into the sign-in
    /// form at once (a page's `autofocus` field takes it); F6 or Ctrl+Tab reaches the header bar's
    /// buttons (on GTK 3 Tab does too).
    func show() {
        widgets.present()
        gtk_widget_grab_focus(wvh_widget(webView))
    }

    /// A page started loading: show the indicator if it is still loading after ``indicatorDelay``.
    func loadStarted() {
        loadGeneration += 1
        let generation = loadGeneration
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: Self.indicatorDelay)
            guard let self, !self.destroyed, self.loadGeneration == generation else { return }
            self.widgets.showIndicator(true)
        }
    }

    /// Shows the host of the page in the header bar, saying when the connection is not encrypted.
    /// The same text again changes nothing: GTK 3's header bar would lay itself out and redraw the
    /// window on every load, while the page's next response (a redirect, say) waits for the main loop.
    func showPage(_ url: URL) {
        guard !destroyed, let host = url.host else { return }
        let place = url.port.map { "\(host):\($0)" } ?? host
        let subtitle = url.scheme?.lowercased() == "https" ? place : ShownText.tr("header bar", "{host} (not encrypted)", ["host": place])
        guard subtitle != shownSubtitle else { return }
        shownSubtitle = subtitle
        widgets.setSubtitle(subtitle)
    }

    /// The load finished, failed or was handed elsewhere: hide the indicator.
    func loadEnded() {
        loadGeneration += 1
        guard !destroyed else { return }
        widgets.showIndicator(false)
    }

    /// Hides the window (its handlers stay until ``destroy()``).
    func hide() {
        guard !destroyed else { return }
        widgets.hide()
    }

    /// Disconnects the window's handlers and destroys it. Calling it again does nothing.
    func destroy() {
        connections.disconnectAll()
        if !destroyed {
            destroyed = true
            WebKitDifferences.destroyWindow(window)
        }
        reference = nil
    }
}

extension SignInWindowWidgets {
    /// The load indicator's spinner and word, made the same way for both toolkits: margins on the
    /// children, which the on-screen-display bubble's background covers (unlike a border width).
    /// The toolkit's widgets put them in the bubble.
    static func makeIndicatorContent() -> (spinner: UnsafeMutablePointer<GtkWidget>, label: UnsafeMutablePointer<GtkWidget>) {
        let spinner = gtk_spinner_new()!
        gtk_widget_set_size_request(spinner, 24, 24)
        let label = gtk_label_new(ShownText.tr("status", "Loading…"))!
        for (widget, start, end) in [(spinner, gint(18), gint(0)), (label, gint(0), gint(20))] {
            gtk_widget_set_margin_start(widget, start)
            gtk_widget_set_margin_end(widget, end)
            gtk_widget_set_margin_top(widget, 14)
            gtk_widget_set_margin_bottom(widget, 14)
        }
        return (spinner, label)
    }
}

extension SignInWindowWidgets {
    /// For a key press in `window`: F6, or Tab with Ctrl (GTK's way out of a widget that keeps Tab
    /// for itself), with Shift too, moves the focus from the page to `headerButton` and from
    /// anywhere else back to the page, with the focus ring shown as after Tab. Whether it did
    /// (the key is then taken).
    static func switchBetweenPageAndHeader(
        keyval: UInt32, control: Bool, in window: WebKitDifferences.Window, page view: WebKitDifferences.WebView,
        headerButton: WebKitDifferences.Widget
    ) -> Bool {
        let switches = switch Int32(keyval) {
        case GDK_KEY_F6: true
        case GDK_KEY_Tab, GDK_KEY_ISO_Left_Tab, GDK_KEY_KP_Tab: control
        default: false
        }
        guard switches, let page = wvh_widget(view) else { return false }
        let focus = gtk_window_get_focus(window)
        let inPage = focus.map { $0 == page || gtk_widget_is_ancestor($0, page) != 0 } ?? false
        gtk_widget_grab_focus(inPage ? headerButton : page)
        gtk_window_set_focus_visible(window, 1)
        return true
    }
}
