/// What a GTK 4 app needs from C to use WebviewHost, in one import: GTK 4, WebKitGTK 6.0, GLib,
/// GIO and libsoup, with the GObject casts as functions (`wvh_window`, `wvh_widget`,
/// `wvh_web_view`, ... standing for `GTK_WINDOW()`, `GTK_WIDGET()`, `WEBKIT_WEB_VIEW()`), and
/// GLibSupport (``MainLoopBridge``, signal connections, `GLibError`).
///
/// ```swift
/// import BuiltInWebviewProvidersGTK4
/// import WebviewHostGTK4
///
/// let app = gtk_application_new("com.example.App", G_APPLICATION_DEFAULT_FLAGS)
/// MainLoopBridge.install()
/// WebviewProviderRegistry.registerBuiltInProviders()
/// // connect "activate", then g_application_run(...)
/// ```
@_exported import CGLib
@_exported import CWebKitGTK6
@_exported import GLibSupport

extension ToolkitIntegration {
    /// GTK 4: launch contexts from the window's `GdkDisplay`, X11 parent identifiers.
    /// `registerBuiltInProviders()` (from `BuiltInWebviewProvidersGTK4`) installs it.
    public static let gtk4 = ToolkitIntegration(
        name: "GTK 4",
        makeLaunchContext: { window in
            var display: OpaquePointer? = nil
            if let window, wvh_is_window(window) != 0 { display = gtk_widget_get_display(wvh_widget(window)) }
            guard let display = display ?? gdk_display_get_default(),
                let context = gdk_display_get_app_launch_context(display)
            else { return nil }
            gdk_app_launch_context_set_timestamp(context, wvh_gdk_current_time())
            return wvh_app_launch_context(UnsafeMutableRawPointer(context))
        },
        parentWindowIdentifier: { window in
            guard wvh_is_window(window) != 0, let identifier = wvh_parent_window_identifier(wvh_window(window)) else {
                return nil
            }
            defer { g_free(identifier) }
            return String(cString: identifier)
        })
}
