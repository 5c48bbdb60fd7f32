import CGLib
import CWebKitGTK4
import GLibSupport

/// The GTK 4 side of ``LibraryWindow``: how the library's windows close, are placed and are
/// destroyed.
extension LibraryWindow {
    /// `handler` for `cancelButton`, the compositor's close (`close-request`) and Escape on
    /// `window`, which then do nothing more: the session decides what happens to the window.
    package static func onCloseRequest(
        of window: Window, cancelButton: Widget, _ connections: SignalConnections, _ handler: @escaping @MainActor () -> Void
    ) {
        connections.connect(cancelButton, "clicked", .plain { handler() })
        connections.connect(window, "close-request", .returningBool {
            handler()
            return true
        })
        let keys = gtk_event_controller_key_new()!
        gtk_widget_add_controller(wvh_widget(window), keys)  // the window owns it
        connections.connect(keys, "key-pressed", .keyPressed { keyval, _ in
            guard keyval == UInt32(GDK_KEY_Escape) else { return false }
            handler()
            return true
        })
    }

    /// `handler` when someone else destroys `window` (with its parent, say). GTK 4 emits
    /// `destroy` only on the last reference, which the library's window object holds until it is
    /// done: `unrealize` once the window is off the list is that moment. GTK keeps pointing at a
    /// parent that destroyed the window with it, and would reach for it when the window is finally
    /// disposed, after the parent is gone: the window lets go of it now, while the parent exists.
    package static func onDestroyedElsewhere(of window: Window, _ connections: SignalConnections, _ handler: @escaping @MainActor () -> Void) {
        connections.connect(window, "destroy", .plain { handler() })
        connections.connect(window, "unrealize", .plain {
            guard !isListed(window) else { return }
            gtk_window_set_transient_for(window, nil)
            handler()
        })
    }

    /// Whether GTK still lists the window among its toplevels (`gtk_window_destroy` unlists it; a
    /// hidden window may never have been realized, so only the list tells).
    package static func isListed(_ window: Window) -> Bool {
        let list = gtk_window_list_toplevels()
        defer { g_list_free(list) }
        var node = list
        while let current = node {
            if current.pointee.data == UnsafeMutableRawPointer(window) { return true }
            node = current.pointee.next
        }
        return false
    }

    /// Makes `window` modal over and transient for `parent`, and destroyed with it (the
    /// compositor centres a modal dialog on its parent).
    package static func place(_ window: Window, over parent: Window?) {
        guard let parent else { return }
        gtk_window_set_transient_for(window, parent)
        gtk_window_set_modal(window, 1)
        gtk_window_set_destroy_with_parent(window, 1)
    }

    /// Destroys a toplevel the library made (`gtk_window_destroy`).
    package static func destroy(_ window: some GObjectPointer) {
        gtk_window_destroy(wvh_window(window.objectAddress))
    }
}
