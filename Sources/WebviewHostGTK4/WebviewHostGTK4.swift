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
@_exported import CWebKitGTK4
@_exported import GLibSupport
public import WebviewHost

extension ToolkitIntegration {
    /// GTK 4: launch contexts from the window's `GdkDisplay`, X11 parent identifiers.
    /// `registerBuiltInProviders()` (from `BuiltInWebviewProvidersGTK4`) installs it.
    public static let gtk4 = GTKToolkitIntegration.make(name: "GTK 4")
}

extension DeviceCodeWindows {
    /// The library's GTK 4 window for a device code, which `registerBuiltInProviders()` installs
    /// as ``DeviceCodeWindows/present`` (SignIn's `acquireTokenWithDeviceCode` shows it with the
    /// `.window` and `.automatic` displays). An app that does not register the built-in providers
    /// installs it itself: `DeviceCodeWindows.present = DeviceCodeWindows.gtk4`.
    public static let gtk4: Present = { content, parent, cancel in
        DeviceCodeWindow.present(content, parent: parent, cancel: cancel)
    }
}
