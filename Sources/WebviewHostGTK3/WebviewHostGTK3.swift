/// What a GTK 3 app needs from C to use WebviewHost, in one import: GTK 3, WebKitGTK
/// (webkit2gtk-4.1), GLib, GIO and libsoup, with the GObject casts as functions (`wvh_window`,
/// `wvh_widget`, `wvh_web_view`, ... standing for `GTK_WINDOW()`, `GTK_WIDGET()`,
/// `WEBKIT_WEB_VIEW()`), and GLibSupport (``MainLoopBridge``, signal connections, `GLibError`).
///
/// ```swift
/// import BuiltInWebviewProvidersGTK3
/// import WebviewHostGTK3
///
/// gtk_init(nil, nil)
/// MainLoopBridge.install()
/// WebviewProviderRegistry.registerBuiltInProviders()
/// ```
@_exported import CGLib
@_exported import CWebKitGTK3
@_exported import GLibSupport

extension ToolkitIntegration {
    /// GTK 3: launch contexts from the window's `GdkDisplay`, X11 parent identifiers.
    /// `registerBuiltInProviders()` installs it.
    public static let gtk3 = GTKToolkitIntegration.make(name: "GTK 3")
}
