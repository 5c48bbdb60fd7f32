@_exported public import WebviewHost
import EmbeddedWebviewProviderGTK4
import GLibSupport
import WebviewHostGTK4

extension WebviewProviderRegistry {
    /// Registers the built-in providers for a GTK 4 app: the person's browser (`system-browser`)
    /// and the embedded WebKitGTK 6.0 view (`embedded`), installs the window SignIn shows a device code
    /// in (`DeviceCodeWindows.present`, as `DeviceCodeWindows.gtk4`), and installs GTK 4 as the toolkit the
    /// browser is launched through (`ToolkitIntegration.gtk4`). Call once at
    /// start-up, on the main thread, after `gtk_init()` (or in the application's `startup`).
    @MainActor
    public static func registerBuiltInProviders() {
        ToolkitIntegration.current = .gtk4
        for provider in builtInProviders() { register(provider) }
        DeviceCodeWindows.present = DeviceCodeWindows.gtk4
    }
}
