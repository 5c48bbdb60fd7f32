public import CGLib

/// What the toolkit-neutral modules (``GLibSupport``, `SystemBrowserProvider`) need from the app's
/// toolkit, supplied by the toolkit's module so that they never link GTK themselves: a process
/// loads GTK 3 or GTK 4, and these modules must load in both.
///
/// `WebviewHostGTK3` and `WebviewHostGTK4` each provide one (`.gtk3`, `.gtk4`), and the toolkit's
/// `registerBuiltInProviders()` installs it as ``current``. Without one (a GLib-only program), the
/// browser is launched with a plain `GAppLaunchContext`: it still opens, without the display's
/// start-up notification.
public struct ToolkitIntegration: Sendable {
    /// "GTK 3" or "GTK 4", for messages and `help`.
    public let name: String
    /// A launch context on the display of `window` (a `GtkWindow *` of this toolkit, or `nil` for
    /// the default display), stamped with the current time; `nil` when there is no display.
    /// Returned with a reference the caller releases.
    public let makeLaunchContext: @MainActor @Sendable (_ window: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<GAppLaunchContext>?
    /// The XDG portal's identifier of `window` as a parent (`x11:<XID>`), or `nil` when it has
    /// none yet (not realized, or on Wayland, where the handle is exported asynchronously).
    public let parentWindowIdentifier: @MainActor @Sendable (_ window: UnsafeMutableRawPointer) -> String?

    public init(
        name: String,
        makeLaunchContext: @escaping @MainActor @Sendable (UnsafeMutableRawPointer?) -> UnsafeMutablePointer<GAppLaunchContext>?,
        parentWindowIdentifier: @escaping @MainActor @Sendable (UnsafeMutableRawPointer) -> String?
    ) {
        self.name = name
        self.makeLaunchContext = makeLaunchContext
        self.parentWindowIdentifier = parentWindowIdentifier
    }

    /// The app's toolkit, once its module installed it (main thread only).
    @MainActor public static var current: ToolkitIntegration?
}
