@_exported public import WebviewHost
import EmbeddedWebviewProviderGTK3
import GLibSupport
import WebviewHostGTK3

extension WebviewProviderRegistry {
    /// Registers the built-in providers for a GTK 3 app: the person's browser (`system-browser`)
    /// and the embedded WebKitGTK 4.1 view (`embedded`), installs the window SignIn shows a device code
    /// in (`DeviceCodeWindows.present`, as `DeviceCodeWindows.gtk3`), and installs GTK 3 as the toolkit the
    /// browser is launched through (`ToolkitIntegration.gtk3`). Call once at
    /// start-up, on the main thread, after `gtk_init`.
    @MainActor
    public static func registerBuiltInProviders() {
        ToolkitIntegration.current = .gtk3
        for provider in builtInProviders() { register(provider) }
        DeviceCodeWindows.present = DeviceCodeWindows.gtk3
    }
}
