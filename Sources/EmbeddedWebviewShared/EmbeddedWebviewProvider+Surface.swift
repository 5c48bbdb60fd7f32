import WebviewHost

extension EmbeddedWebviewProvider {
    /// The kinds of permission a sign-in page may be granted (`permission-request`); every other
    /// request is denied, and the Permissions API reports it denied. Empty by default. Applies to
    /// sessions started afterwards, in the library's window and in a caller's view. Main thread.
    ///
    /// The process's value, except inside `WebviewProviderRegistry.withIsolatedRegistry`, where a
    /// task (a test) has its own; a session keeps the value it started with.
    ///
    /// See the article "The sign-in surface" for everything else the view refuses a page.
    @MainActor public static var allowedPermissions: Set<SignInPermission> {
        get { EmbeddedProviderSettings.allowedPermissions.value }
        set { EmbeddedProviderSettings.allowedPermissions.value = newValue }
    }
}

extension EmbeddedWebviewProvider {
    /// Whether the library's sign-in window, and the page in it, follow the desktop's light/dark
    /// preference (the Settings portal's `org.freedesktop.appearance color-scheme`): when the
    /// portal prefers dark or light, GTK's `gtk-application-prefer-dark-theme` is set to match for
    /// the length of the session (the window is modal over the app) and put back afterwards, and
    /// the page's `prefers-color-scheme` matches. Without a portal preference GTK's own settings
    /// stand, which WebKit follows too. A caller's view is never changed. `true` by default. Main thread.
    ///
    /// The process's value, except inside `WebviewProviderRegistry.withIsolatedRegistry`, where a
    /// task (a test) has its own; a session keeps the value it started with.
    @MainActor public static var followsDesktopColorScheme: Bool {
        get { EmbeddedProviderSettings.followsDesktopColorScheme.value }
        set { EmbeddedProviderSettings.followsDesktopColorScheme.value = newValue }
    }
}
