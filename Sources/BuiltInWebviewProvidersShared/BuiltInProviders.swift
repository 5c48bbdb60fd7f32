#if WEBKITGTK_6
import EmbeddedWebviewProviderGTK4
#else
import EmbeddedWebviewProviderGTK3
#endif
import SystemBrowserProvider
import WebviewHost

extension WebviewProviderRegistry {
    /// The providers `registerBuiltInProviders()` registers, for either toolkit: the one list a
    /// new built-in provider joins (ARCHITECTURE.md, "Where to change common things").
    @MainActor
    static func builtInProviders() -> [any WebviewProvider] {
        [SystemBrowserProvider(), EmbeddedWebviewProvider()]
    }
}
