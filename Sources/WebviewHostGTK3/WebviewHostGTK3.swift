/// What a GTK 3 app needs from C to use WebviewHost, in one import: GTK 3, WebKitGTK
/// (webkit2gtk-4.1), GLib, GIO and libsoup, with the GObject casts as functions (`wvh_window`,
/// `wvh_widget`, `wvh_web_view`, ... standing for `GTK_WINDOW()`, `GTK_WIDGET()`,
/// `WEBKIT_WEB_VIEW()`), and GLibSupport (``MainLoopBridge``, signal connections, `GLibError`).
///
/// ```swift
/// import BuiltInWebviewProviders
/// import WebviewHostGTK3
///
/// gtk_init(nil, nil)
/// MainLoopBridge.install()
/// WebviewProviderRegistry.registerBuiltInProviders()
/// ```
@_exported import CGLib
@_exported import CWebKitGTK
@_exported import GLibSupport

extension ToolkitIntegration {
    /// GTK 3: launch contexts from the window's `GdkDisplay`, X11 parent identifiers.
    /// `registerBuiltInProviders()` installs it.
    public static let gtk3 = ToolkitIntegration(
        name: "GTK 3",
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
