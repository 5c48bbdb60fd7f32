public import WebviewHost
import EmbeddedWebviewProvider
import SystemBrowserProvider

extension WebviewProviderRegistry {
    /// Registers the built-in providers: the person's browser (`system-browser`) and the
    /// embedded WebKitGTK view (`embedded`). Call once at start-up, after `gtk_init`.
    public static func registerBuiltInProviders() {
        register(SystemBrowserProvider())
        register(EmbeddedWebviewProvider())
    }
}
