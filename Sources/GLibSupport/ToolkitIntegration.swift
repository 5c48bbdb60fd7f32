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
    /// Exports `window` for the portal on Wayland (xdg-foreign) and calls `exported` once, on the
    /// main thread, with its identifier (`wayland:<handle>`), or at once with `nil` when it cannot
    /// be exported (not Wayland, not realized, no xdg-foreign). ``unexportParentWindow`` drops the
    /// handle once the portal call is over.
    public let exportParentWindow: @MainActor @Sendable (_ window: UnsafeMutableRawPointer, _ exported: @escaping @MainActor (String?) -> Void) -> Void
    /// Drops what ``exportParentWindow`` exported for `window`.
    public let unexportParentWindow: @MainActor @Sendable (_ window: UnsafeMutableRawPointer) -> Void

    public init(
        name: String,
        makeLaunchContext: @escaping @MainActor @Sendable (UnsafeMutableRawPointer?) -> UnsafeMutablePointer<GAppLaunchContext>?,
        parentWindowIdentifier: @escaping @MainActor @Sendable (UnsafeMutableRawPointer) -> String?,
        exportParentWindow: @escaping @MainActor @Sendable (UnsafeMutableRawPointer, @escaping @MainActor (String?) -> Void) -> Void = { $1(nil) },
        unexportParentWindow: @escaping @MainActor @Sendable (UnsafeMutableRawPointer) -> Void = { _ in }
    ) {
        self.name = name
        self.makeLaunchContext = makeLaunchContext
        self.parentWindowIdentifier = parentWindowIdentifier
        self.exportParentWindow = exportParentWindow
        self.unexportParentWindow = unexportParentWindow
    }

    /// The app's toolkit, once its module installed it (main thread only).
    @MainActor public static var current: ToolkitIntegration?
}
