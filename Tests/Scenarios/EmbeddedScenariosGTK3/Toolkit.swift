import CGLib
import CWebKitGTK3
import Foundation
import GLibSupport
import WebviewHost
import WebviewHostGTK3

/// The GTK 3 side of the few calls the shared scenarios (`Tests/Scenarios/EmbeddedScenariosShared`, linked
/// here as `Shared`) cannot make the same way in GTK 3 and GTK 4: making, filling, showing and
/// destroying the test's own windows, finding a widget's window and children, key events and
/// clicks, and the header bar's subtitle.
@MainActor
enum Toolkit {
    /// The library's device-code window in this toolkit (`WebviewHostGTK3`).
    static func deviceCodeWindow(
        _ content: DeviceCodeWindowContent, parent: WindowHandle?, cancel: @escaping @MainActor () -> Void
    ) -> (@MainActor () -> Void) {
        DeviceCodeWindows.gtk3(content, parent, cancel)
    }

    /// A `WebKitAuthenticationRequest *` (`authenticate`'s argument; its instance struct is public in WebKitGTK 4.1).
    typealias AuthenticationRequest = UnsafeMutablePointer<WebKitAuthenticationRequest>

    /// Opens the display (`gtk_init_check`); the default `GdkDisplay *`, or `nil` without one.
    static func initialize() -> UnsafeMutableRawPointer? {
        gtk_init_check(nil, nil) != 0 ? UnsafeMutableRawPointer(gdk_display_get_default()) : nil
    }

    /// The toplevel window holding `widget` (`gtk_widget_get_toplevel`), `nil` when it is in none.
    static func window(of widget: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        guard let toplevel = gtk_widget_get_toplevel(wvh_widget(widget)), gtk_widget_is_toplevel(toplevel) != 0 else { return nil }
        return UnsafeMutableRawPointer(toplevel)
    }

    /// A new toplevel window, not yet shown.
    static func makeWindow(width: Int32, height: Int32) -> UnsafeMutableRawPointer {
        let window = UnsafeMutableRawPointer(gtk_window_new(GTK_WINDOW_TOPLEVEL)!)
        gtk_window_set_default_size(wvh_window(window), width, height)
        return window
    }

    /// Puts `child` in `window` (`gtk_container_add`).
    static func setChild(_ child: UnsafeMutableRawPointer, of window: UnsafeMutableRawPointer) {
        gtk_container_add(wvh_container(window), wvh_widget(child))
    }

    static func makeVerticalBox() -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!)
    }

    /// Adds `child` at the end of `box`, taking the free space when `expand`.
    static func append(_ child: UnsafeMutableRawPointer, to box: UnsafeMutableRawPointer, expand: Bool = false) {
        gtk_box_pack_start(wvh_box(box), wvh_widget(child), expand ? 1 : 0, expand ? 1 : 0, 0)
    }

    /// Shows `window` and everything in it (`gtk_widget_show_all`).
    static func show(_ window: UnsafeMutableRawPointer) {
        gtk_widget_show_all(wvh_widget(window))
    }

    /// Whether the compositor shows `window` fullscreen (Weston's kiosk shell does so with a toplevel
    /// of no parent, once it has configured it).
    static func isFullscreen(_ window: UnsafeMutableRawPointer) -> Bool {
        guard let surface = gtk_widget_get_window(wvh_widget(window)) else { return false }
        return gdk_window_get_state(surface).rawValue & GDK_WINDOW_STATE_FULLSCREEN.rawValue != 0
    }

    /// Destroys a toplevel window (`gtk_widget_destroy`).
    static func destroyWindow(_ window: UnsafeMutableRawPointer) {
        gtk_widget_destroy(wvh_widget(window))
    }

    /// How far (in pixels, the larger of x and y) the centre of `window` is from the centre of
    /// `parent`, as GTK 3 placed it (`gtk_window_get_position`, `gtk_window_get_size`); `nil` where
    /// positions are unknown (Wayland tells a client nothing about where its windows are).
    static func distanceFromCentre(of window: UnsafeMutableRawPointer, on parent: UnsafeMutableRawPointer) -> Int? {
        guard let display = gdk_display_get_default(),
            String(cString: g_type_name(wvh_object_type(UnsafeMutableRawPointer(display)))) == "GdkX11Display"
        else { return nil }
        func centre(_ window: UnsafeMutableRawPointer) -> (x: Int, y: Int) {
            var x: gint = 0, y: gint = 0, width: gint = 0, height: gint = 0
            gtk_window_get_position(wvh_window(window), &x, &y)
            gtk_window_get_size(wvh_window(window), &width, &height)
            return (Int(x + width / 2), Int(y + height / 2))
        }
        let (a, b) = (centre(window), centre(parent))
        return max(abs(a.x - b.x), abs(a.y - b.y))
    }

    /// The header bar's subtitle of `window` (`gtk_header_bar_get_subtitle`).
    static func subtitle(of window: UnsafeMutableRawPointer) -> String {
        gtk_window_get_titlebar(wvh_window(window)).flatMap { gtk_header_bar_get_subtitle(wvh_header_bar($0)) }
            .map { String(cString: $0) } ?? ""
    }

    /// A shown app window with a header bar and a label, standing in for the app's main window.
    static func makeAppWindow(title: String, width: Int32, height: Int32) -> UnsafeMutableRawPointer {
        let window = makeWindow(width: width, height: height)
        gtk_window_set_title(wvh_window(window), title)
        // A client-side title bar, so the app window is recognisable even without a window manager (Xvfb).
        let header = gtk_header_bar_new()!
        gtk_header_bar_set_title(wvh_header_bar(header), title)
        gtk_header_bar_set_show_close_button(wvh_header_bar(header), 1)
        gtk_window_set_titlebar(wvh_window(window), header)
        setChild(makeAppContentLabel(), of: window)
        show(window)
        return window
    }

    /// Sends a key press to a window as the display server would (`gtk_main_do_event`).
    static func pressKey(_ keyval: UInt32, on window: UnsafeMutableRawPointer) {
        guard let gdkWindow = gtk_widget_get_window(wvh_widget(window)), let event = gdk_event_new(GDK_KEY_PRESS)
        else { return }
        event.pointee.key.window = OpaquePointer(g_object_ref(UnsafeMutableRawPointer(gdkWindow)))
        event.pointee.key.keyval = guint(keyval)
        event.pointee.key.time = guint32(GDK_CURRENT_TIME)
        let display = gtk_widget_get_display(wvh_widget(window))
        gdk_event_set_device(event, gdk_seat_get_keyboard(gdk_display_get_default_seat(display)))
        gtk_main_do_event(event)
        gdk_event_free(event)
    }

    /// Calls `released` for each key release that reaches `window` (real key events, in the order
    /// the display server sent them), before the widgets in it; the release goes on to them.
    static func watchKeyReleases(on window: UnsafeMutableRawPointer, _ connections: SignalConnections, released: @escaping @MainActor () -> Void) {
        connections.connect(window, "key-release-event", .pointerReturningBool {
            released()
            return false
        })
    }

    /// The frame clock `window` paints on (`gdk_window_get_frame_clock`), once it is realized.
    static func frameClock(of window: UnsafeMutableRawPointer) -> OpaquePointer? {
        gtk_widget_get_window(wvh_widget(window)).flatMap { gdk_window_get_frame_clock($0) }
    }

    /// The text in the `GtkEntry` `entry` (`gtk_entry_get_text`).
    static func entryText(_ entry: UnsafeMutableRawPointer) -> String {
        gtk_entry_get_text(wvh_entry(entry)).map { String(cString: $0) } ?? ""
    }

    /// Puts `text` in the `GtkEntry` `entry` (`gtk_entry_set_text`).
    static func setEntryText(_ entry: UnsafeMutableRawPointer, _ text: String) {
        gtk_entry_set_text(wvh_entry(entry), text)
    }

    /// What a screen reader is given for `widget` (its ATK object's name).
    static func accessibleName(of widget: UnsafeMutableRawPointer) -> String? {
        atk_object_get_name(gtk_widget_get_accessible(wvh_widget(widget))).map { String(cString: $0) }
    }

    /// Every toplevel window, shown or not, but popups (GTK's tooltip windows).
    static func toplevels() -> [UnsafeMutableRawPointer] {
        let list = gtk_window_list_toplevels()
        defer { g_list_free(list) }
        var windows: [UnsafeMutableRawPointer] = []
        var node = list
        while let current = node {
            if let widget = current.pointee.data, gtk_window_get_window_type(wvh_window(widget)) == GTK_WINDOW_TOPLEVEL {
                windows.append(widget)
            }
            node = current.pointee.next
        }
        return windows
    }

    /// The children of `widget` (`gtk_container_get_children`; none for a widget that is no container).
    static func children(of widget: UnsafeMutableRawPointer) -> [UnsafeMutableRawPointer] {
        guard g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(widget)), gtk_container_get_type()) != 0,
            let list = gtk_container_get_children(wvh_container(widget))
        else { return [] }
        defer { g_list_free(list) }
        var children: [UnsafeMutableRawPointer] = []
        var node: UnsafeMutablePointer<GList>? = list
        while let current = node {
            if let child = current.pointee.data { children.append(child) }
            node = current.pointee.next
        }
        return children
    }

    /// The children of `widget` with the internal ones (`gtk_container_forall`): a web view's
    /// credentials dialog is one of WebKitWebViewBase's internal children in GTK 3.
    static func childrenWithInternal(of widget: UnsafeMutableRawPointer) -> [UnsafeMutableRawPointer] {
        guard g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(widget)), gtk_container_get_type()) != 0 else { return [] }
        var children: [UnsafeMutableRawPointer] = []
        withUnsafeMutablePointer(to: &children) { list in
            gtk_container_forall(wvh_container(widget), { child, data in
                guard let child, let data else { return }
                data.assumingMemoryBound(to: [UnsafeMutableRawPointer].self).pointee.append(UnsafeMutableRawPointer(child))
            }, list)
        }
        return children
    }

    /// The size `widget` was given (`gtk_widget_get_allocated_width` / `_height`).
    static func size(of widget: UnsafeMutableRawPointer) -> (width: Int, height: Int) {
        (Int(gtk_widget_get_allocated_width(wvh_widget(widget))), Int(gtk_widget_get_allocated_height(wvh_widget(widget))))
    }

    /// The middle of `widget` in its toplevel's X window (what `xdotool mousemove --window` takes:
    /// the toplevel's allocation is its whole window, client-side decorations included); `nil`
    /// when it is in no toplevel.
    static func centreInWindow(of widget: UnsafeMutableRawPointer) -> (x: Int, y: Int)? {
        guard let toplevel = window(of: widget) else { return nil }
        var allocation = GtkAllocation()
        gtk_widget_get_allocation(wvh_widget(widget), &allocation)
        var x: gint = 0
        var y: gint = 0
        guard gtk_widget_translate_coordinates(
            wvh_widget(widget), wvh_widget(toplevel), allocation.width / 2, allocation.height / 2, &x, &y) != 0
        else { return nil }
        return (Int(x), Int(y))
    }

    /// Clicks `button` as a person would (`gtk_button_clicked`).
    static func click(_ button: UnsafeMutableRawPointer) {
        gtk_button_clicked(UnsafeMutablePointer<GtkButton>(OpaquePointer(button)))
    }

    /// The URI of a back/forward list item.
    static func uri(ofHistoryItem item: UnsafeMutableRawPointer) -> String? {
        webkit_back_forward_list_item_get_uri(item.assumingMemoryBound(to: WebKitBackForwardListItem.self))
            .map { String(cString: $0) }
    }

    /// A bare `WebKitWebView` as an app makes one: the default context, or a new ephemeral one,
    /// or (with `persistentIn`) a new persistent one keeping its data in that folder.
    static func makeBareWebView(ephemeral: Bool, persistentIn folder: URL? = nil) -> UnsafeMutableRawPointer {
        let context: UnsafeMutablePointer<WebKitWebContext>
        if ephemeral {
            context = webkit_web_context_new_ephemeral()!
        } else if let folder {
            let manager = wvh_website_data_manager_new(folder.appendingPathComponent("data").path, folder.appendingPathComponent("cache").path)!
            context = webkit_web_context_new_with_website_data_manager(manager)!
            g_object_unref(UnsafeMutableRawPointer(manager))
        } else {
            return UnsafeMutableRawPointer(webkit_web_view_new()!)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        return UnsafeMutableRawPointer(webkit_web_view_new_with_context(context)!)
    }

    /// Trusts `certificate` for `host` in `view`'s data store (its `WebKitWebContext` in 4.1).
    static func allowCertificate(_ certificate: UnsafeMutablePointer<GTlsCertificate>, host: String, in view: UnsafeMutableRawPointer) {
        webkit_web_context_allow_tls_certificate_for_host(webkit_web_view_get_context(wvh_web_view(view)), certificate, host)
    }

    /// Sets `view`'s data store to no proxy (or back to the desktop's), as an app changing its
    /// proxy settings does; WebKit aborts the store's requests when they change.
    static func setNoProxy(_ noProxy: Bool, in view: UnsafeMutableRawPointer) {
        let manager = webkit_web_context_get_website_data_manager(webkit_web_view_get_context(wvh_web_view(view)))
        webkit_website_data_manager_set_network_proxy_settings(manager, noProxy ? WEBKIT_NETWORK_PROXY_MODE_NO_PROXY : WEBKIT_NETWORK_PROXY_MODE_DEFAULT, nil)
    }
}
