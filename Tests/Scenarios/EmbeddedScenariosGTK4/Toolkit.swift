import CGLib
import CWebKitGTK4
import Foundation
import GLibSupport
import WebviewHost
import WebviewHostGTK4

/// The GTK 4 side of the few calls the shared scenarios (`Tests/Scenarios/EmbeddedScenariosShared`, linked
/// here as `Shared`) cannot make the same way in GTK 3 and GTK 4: making, filling, showing and
/// destroying the test's own windows, finding a widget's window and children, key events and
/// clicks, and the header bar's subtitle.
@MainActor
enum Toolkit {
    /// The library's device-code window in this toolkit (`WebviewHostGTK4`).
    static func deviceCodeWindow(
        _ content: DeviceCodeWindowContent, parent: WindowHandle?, cancel: @escaping @MainActor () -> Void
    ) -> (@MainActor () -> Void) {
        DeviceCodeWindows.gtk4(content, parent, cancel)
    }

    /// A `WebKitAuthenticationRequest *` (`authenticate`'s argument; opaque in WebKitGTK 6.0).
    typealias AuthenticationRequest = OpaquePointer

    /// Opens the display (`gtk_init_check`); the default `GdkDisplay *`, or `nil` without one.
    static func initialize() -> UnsafeMutableRawPointer? {
        gtk_init_check() != 0 ? UnsafeMutableRawPointer(gdk_display_get_default()) : nil
    }

    /// The window holding `widget` (`gtk_widget_get_root`: GTK 4 has no other toplevel), `nil`
    /// when it is in none (a destroyed window unparents the children someone else still holds).
    static func window(of widget: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        gtk_widget_get_root(wvh_widget(widget)).map { UnsafeMutableRawPointer($0) }
    }

    /// A new toplevel window, not yet shown.
    static func makeWindow(width: Int32, height: Int32) -> UnsafeMutableRawPointer {
        let window = UnsafeMutableRawPointer(gtk_window_new()!)
        gtk_window_set_default_size(wvh_window(window), width, height)
        return window
    }

    /// Puts `child` in `window` (`gtk_window_set_child`).
    static func setChild(_ child: UnsafeMutableRawPointer, of window: UnsafeMutableRawPointer) {
        gtk_window_set_child(wvh_window(window), wvh_widget(child))
    }

    static func makeVerticalBox() -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!)
    }

    /// Adds `child` at the end of `box`, taking the free space when `expand`.
    static func append(_ child: UnsafeMutableRawPointer, to box: UnsafeMutableRawPointer, expand: Bool = false) {
        gtk_widget_set_vexpand(wvh_widget(child), expand ? 1 : 0)
        gtk_box_append(wvh_box(box), wvh_widget(child))
    }

    /// Shows `window` (`gtk_window_present`; GTK 4 widgets other than toplevels are visible from the start).
    static func show(_ window: UnsafeMutableRawPointer) {
        gtk_window_present(wvh_window(window))
    }

    /// Whether the compositor shows `window` fullscreen (Weston's kiosk shell does so with a toplevel
    /// of no parent, once it has configured it).
    static func isFullscreen(_ window: UnsafeMutableRawPointer) -> Bool {
        gtk_window_is_fullscreen(wvh_window(window)) != 0
    }

    /// Destroys a toplevel window (`gtk_window_destroy`).
    static func destroyWindow(_ window: UnsafeMutableRawPointer) {
        gtk_window_destroy(wvh_window(window))
    }

    /// How far the centre of `window` is from the centre of `parent`: always `nil`, GTK 4 has no
    /// window position API (the compositor places windows; it centres a modal transient one).
    static func distanceFromCentre(of window: UnsafeMutableRawPointer, on parent: UnsafeMutableRawPointer) -> Int? {
        nil
    }

    /// The subtitle under the title of `window`'s header bar (the visible label with the
    /// `subtitle` style class in its title widget; GTK 4's header bar has no subtitle of its own).
    static func subtitle(of window: UnsafeMutableRawPointer) -> String {
        guard let header = gtk_window_get_titlebar(wvh_window(window)),
            let titles = gtk_header_bar_get_title_widget(wvh_header_bar(header))
        else { return "" }
        for label in descendants(of: UnsafeMutableRawPointer(titles))
        where g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(label)), gtk_label_get_type()) != 0
            && gtk_widget_has_css_class(wvh_widget(label), "subtitle") != 0 && gtk_widget_get_visible(wvh_widget(label)) != 0
        {
            return gtk_label_get_text(wvh_label(label)).map { String(cString: $0) } ?? ""
        }
        return ""
    }

    /// A shown app window with a header bar and a label, standing in for the app's main window.
    static func makeAppWindow(title: String, width: Int32, height: Int32) -> UnsafeMutableRawPointer {
        let window = makeWindow(width: width, height: height)
        gtk_window_set_title(wvh_window(window), title)
        // A client-side title bar (it shows the window's title), so the app window is
        // recognisable even without a window manager.
        let header = gtk_header_bar_new()!
        gtk_header_bar_set_show_title_buttons(wvh_header_bar(header), 1)
        gtk_window_set_titlebar(wvh_window(window), header)
        setChild(makeAppContentLabel(), of: window)
        show(window)
        return window
    }

    /// Delivers a key press to `window`'s key controllers (`key-pressed`, as GTK does for a key
    /// the window receives; GTK 4 has no public way to inject an event into the display).
    static func pressKey(_ keyval: UInt32, on window: UnsafeMutableRawPointer) {
        _ = wvh_emit_key_pressed(wvh_widget(window), guint(keyval))
    }

    /// Calls `released` for each key release that reaches `window` (real key events, in the order
    /// the display server sent them), before the widgets in it (a legacy controller in the capture
    /// phase: GTK 4's key controller has no `gboolean` signal for releases); the release goes on.
    static func watchKeyReleases(on window: UnsafeMutableRawPointer, _ connections: SignalConnections, released: @escaping @MainActor () -> Void) {
        let events = gtk_event_controller_legacy_new()!
        gtk_event_controller_set_propagation_phase(events, GTK_PHASE_CAPTURE)
        gtk_widget_add_controller(wvh_widget(window), events)  // the window owns it
        connections.connect(events, "event", .pointerReturningBool { (event: OpaquePointer?) in
            if let event, gdk_event_get_event_type(event) == GDK_KEY_RELEASE { released() }
            return false
        })
    }

    /// The frame clock `window` paints on (`gtk_widget_get_frame_clock`), once it is realized.
    static func frameClock(of window: UnsafeMutableRawPointer) -> OpaquePointer? {
        gtk_widget_get_frame_clock(wvh_widget(window))
    }

    /// The text in the `GtkEntry` `entry` (`gtk_editable_get_text`).
    static func entryText(_ entry: UnsafeMutableRawPointer) -> String {
        gtk_editable_get_text(OpaquePointer(entry)).map { String(cString: $0) } ?? ""
    }

    /// Puts `text` in the `GtkEntry` `entry` (`gtk_editable_set_text`).
    static func setEntryText(_ entry: UnsafeMutableRawPointer, _ text: String) {
        gtk_editable_set_text(OpaquePointer(entry), text)
    }

    /// What a screen reader is given for `widget`: GTK 4.8 has no getter for an accessible
    /// property (the page is checked from inside instead).
    static func accessibleName(of widget: UnsafeMutableRawPointer) -> String? { nil }

    /// Every toplevel window, shown or not (GTK 4's tooltips and popovers are no `GtkWindow`).
    static func toplevels() -> [UnsafeMutableRawPointer] {
        let list = gtk_window_list_toplevels()
        defer { g_list_free(list) }
        var windows: [UnsafeMutableRawPointer] = []
        var node = list
        while let current = node {
            if let widget = current.pointee.data { windows.append(widget) }
            node = current.pointee.next
        }
        return windows
    }

    /// The children of `widget` (`gtk_widget_get_first_child`, `gtk_widget_get_next_sibling`).
    static func children(of widget: UnsafeMutableRawPointer) -> [UnsafeMutableRawPointer] {
        var children: [UnsafeMutableRawPointer] = []
        var child = gtk_widget_get_first_child(wvh_widget(widget))
        while let current = child {
            children.append(UnsafeMutableRawPointer(current))
            child = gtk_widget_get_next_sibling(current)
        }
        return children
    }

    /// The children of `widget`: GTK 4 has no internal children apart (a web view's credentials dialog is one).
    static func childrenWithInternal(of widget: UnsafeMutableRawPointer) -> [UnsafeMutableRawPointer] {
        children(of: widget)
    }

    private static func descendants(of widget: UnsafeMutableRawPointer) -> [UnsafeMutableRawPointer] {
        [widget] + children(of: widget).flatMap { descendants(of: $0) }
    }

    /// The size `widget` was given (`gtk_widget_get_width` / `_height`).
    static func size(of widget: UnsafeMutableRawPointer) -> (width: Int, height: Int) {
        (Int(gtk_widget_get_width(wvh_widget(widget))), Int(gtk_widget_get_height(wvh_widget(widget))))
    }

    /// The middle of `widget` in its window's surface (what `xdotool mousemove --window` takes:
    /// the window's own coordinates moved by the surface transform, the room its client-side
    /// shadow takes); `nil` when it is in no window.
    static func centreInWindow(of widget: UnsafeMutableRawPointer) -> (x: Int, y: Int)? {
        guard let toplevel = window(of: widget), let native = gtk_widget_get_native(wvh_widget(widget)) else { return nil }
        var x = 0.0
        var y = 0.0
        let middleX = Double(gtk_widget_get_width(wvh_widget(widget))) / 2
        let middleY = Double(gtk_widget_get_height(wvh_widget(widget))) / 2
        guard gtk_widget_translate_coordinates(wvh_widget(widget), wvh_widget(toplevel), middleX, middleY, &x, &y) != 0
        else { return nil }
        var shadowX = 0.0
        var shadowY = 0.0
        gtk_native_get_surface_transform(native, &shadowX, &shadowY)
        return (Int(x + shadowX), Int(y + shadowY))
    }

    /// Clicks `button` as a person would (its `clicked` signal).
    static func click(_ button: UnsafeMutableRawPointer) {
        wvh_button_clicked(wvh_widget(button))
    }

    /// The URI of a back/forward list item (`WebKitBackForwardListItem` is final in 6.0: opaque).
    static func uri(ofHistoryItem item: UnsafeMutableRawPointer) -> String? {
        webkit_back_forward_list_item_get_uri(OpaquePointer(item)).map { String(cString: $0) }
    }

    /// A bare `WebKitWebView` as an app makes one: the default network session, or a new
    /// ephemeral one, or (with `persistentIn`) a new persistent one keeping its data in that folder.
    static func makeBareWebView(ephemeral: Bool, persistentIn folder: URL? = nil) -> UnsafeMutableRawPointer {
        let session: OpaquePointer
        if ephemeral {
            session = webkit_network_session_new_ephemeral()!
        } else if let folder {
            session = webkit_network_session_new(folder.appendingPathComponent("data").path, folder.appendingPathComponent("cache").path)!
        } else {
            return UnsafeMutableRawPointer(webkit_web_view_new()!)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(session)) }
        return UnsafeMutableRawPointer(wvh_web_view_new_in_session(session)!)
    }

    /// Trusts `certificate` for `host` in `view`'s data store (its `WebKitNetworkSession` in 6.0).
    static func allowCertificate(_ certificate: UnsafeMutablePointer<GTlsCertificate>, host: String, in view: UnsafeMutableRawPointer) {
        webkit_network_session_allow_tls_certificate_for_host(webkit_web_view_get_network_session(wvh_web_view(view)), certificate, host)
    }

    /// Sets `view`'s network session to no proxy (or back to the desktop's), as an app changing
    /// its proxy settings does; WebKit aborts the session's requests when they change.
    static func setNoProxy(_ noProxy: Bool, in view: UnsafeMutableRawPointer) {
        webkit_network_session_set_proxy_settings(
            webkit_web_view_get_network_session(wvh_web_view(view)), noProxy ? WEBKIT_NETWORK_PROXY_MODE_NO_PROXY : WEBKIT_NETWORK_PROXY_MODE_DEFAULT, nil)
    }
}
