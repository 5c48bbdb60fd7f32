#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import GLibSupport

/// The GTK side of ``ToolkitIntegration``, written once: GTK 3 and GTK 4 name these calls the
/// same. Compiled into `WebviewHostGTK3` and `WebviewHostGTK4` (with `WEBKITGTK_6`) through
/// their `Shared` links.
enum GTKToolkitIntegration {
    /// Launch contexts from the window's `GdkDisplay` (else the default display's), stamped now;
    /// X11 parent identifiers, and Wayland ones exported with xdg-foreign.
    static func make(name: String) -> ToolkitIntegration {
        ToolkitIntegration(
            name: name,
            launchContext: { window in
                var display: OpaquePointer? = nil
                if let window = window?.rawValue, wvh_is_window(window) != 0 { display = gtk_widget_get_display(wvh_widget(window)) }
                guard let display = display ?? gdk_display_get_default(),
                    let context = gdk_display_get_app_launch_context(display)
                else { return nil }
                gdk_app_launch_context_set_timestamp(context, wvh_gdk_current_time())
                return GObjectRef(adopting: wvh_app_launch_context(context.objectAddress))
            },
            parentIdentifier: { window in
                guard wvh_is_window(window.rawValue) != 0, let identifier = wvh_parent_window_identifier(wvh_window(window.rawValue))
                else {
                    return nil
                }
                defer { g_free(identifier) }
                return String(cString: identifier)
            },
            exportParent: { window, exported in
                typealias Exported = @MainActor (String?) -> Void
                guard wvh_is_window(window.rawValue) != 0 else { return exported(nil) }
                let started = wvh_export_parent_window(
                    wvh_window(window.rawValue),
                    { handle, data in
                        let exported = UserData<Exported>.borrow(data)
                        let identifier = handle.map { "wayland:" + String(cString: $0) }
                        MainActor.assumeIsolated { exported(identifier) }
                    }, UserData.retained(exported as Exported), UserData<Exported>.destroyNotify)
                if started == 0 { exported(nil) }
            },
            unexportParent: { window in
                if wvh_is_window(window.rawValue) != 0 { wvh_unexport_parent_window(wvh_window(window.rawValue)) }
            })
    }
}
