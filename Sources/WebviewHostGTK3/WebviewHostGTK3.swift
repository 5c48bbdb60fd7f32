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
public import WebviewHost

extension ToolkitIntegration {
    /// GTK 3: launch contexts from the window's `GdkDisplay`, X11 parent identifiers.
    /// `registerBuiltInProviders()` installs it.
    public static let gtk3 = GTKToolkitIntegration.make(name: "GTK 3")
}

extension DeviceCodeWindows {
    /// The library's GTK 3 window for a device code, which `registerBuiltInProviders()` installs
    /// as ``DeviceCodeWindows/present`` (SignIn's `acquireTokenWithDeviceCode` shows it with the
    /// `.window` and `.automatic` displays). An app that does not register the built-in providers
    /// installs it itself: `DeviceCodeWindows.present = DeviceCodeWindows.gtk3`.
    public static let gtk3: Present = { content, parent, cancel in
        DeviceCodeWindow.present(content, parent: parent, cancel: cancel)
    }
}
