import CGLib
import CWebKitGTK3
import GLibSupport

/// The GTK 3 side of ``LibraryWindow``: how the library's windows close, are placed and are
/// destroyed.
extension LibraryWindow {
    /// `handler` for `cancelButton`, the window manager's close (`delete-event`) and Escape
    /// (`key-press-event`) on `window`, which then do nothing more: the session decides what
    /// happens to the window.
    package static func onCloseRequest(
        of window: Window, cancelButton: Widget, _ connections: SignalConnections, _ handler: @escaping @MainActor () -> Void
    ) {
        connections.connect(cancelButton, "clicked", .plain { handler() })
        connections.connect(window, "delete-event", .pointerReturningBool {
            handler()
            return true
        })
        connections.connect(window, "key-press-event", .pointerReturningBool { (event: UnsafeMutablePointer<GdkEvent>?) in
            guard let event, wvh_event_key_keyval(event) == guint(GDK_KEY_Escape) else { return false }
            handler()
            return true
        })
    }

    /// `handler` when someone else destroys `window` (with its parent, say): GTK 3 emits
    /// `destroy` at once.
    package static func onDestroyedElsewhere(of window: Window, _ connections: SignalConnections, _ handler: @escaping @MainActor () -> Void) {
        connections.connect(window, "destroy", .plain { handler() })
    }

    /// Whether GTK still lists the window: in GTK 3, `destroy` says when it is gone.
    package static func isListed(_ window: Window) -> Bool { true }

    /// Makes `window` modal over, transient for and centred on `parent`, and destroyed with it;
    /// centred on the screen without a parent.
    package static func place(_ window: Window, over parent: Window?) {
        if let parent {
            gtk_window_set_transient_for(window, parent)
            gtk_window_set_modal(window, 1)
            gtk_window_set_destroy_with_parent(window, 1)
            gtk_window_set_position(window, GTK_WIN_POS_CENTER_ON_PARENT)
        } else {
            gtk_window_set_position(window, GTK_WIN_POS_CENTER)
        }
    }

    /// Destroys a toplevel the library made (`gtk_widget_destroy`).
    package static func destroy(_ window: some GObjectPointer) {
        gtk_widget_destroy(wvh_widget(window.objectAddress))
    }
}
