public import CGLib
import Synchronization

/// What the toolkit-neutral modules (``GLibSupport``, `SystemBrowserProvider`) need from the app's
/// toolkit, supplied by the toolkit's module so that they never link GTK themselves: a process
/// loads GTK 3 or GTK 4, and these modules must load in both.
///
/// `WebviewHostGTK3` and `WebviewHostGTK4` each provide one (`.gtk3`, `.gtk4`), and the toolkit's
/// `registerBuiltInProviders()` installs it as ``current``. Without one (a GLib-only program), the
/// browser is launched with a plain `GAppLaunchContext`: it still opens, without the display's
/// start-up notification. Windows are passed as ``ToolkitWindow`` handles; every hook runs on the
/// main thread.
public struct ToolkitIntegration: Sendable {
    /// "GTK 3" or "GTK 4", for messages and `help`.
    public let name: String
    private let makeContext: @MainActor @Sendable (ToolkitWindow?) -> GObjectRef<UnsafeMutablePointer<GAppLaunchContext>>?
    private let identifyParent: @MainActor @Sendable (ToolkitWindow) -> String?
    private let exportParentHook: @MainActor @Sendable (ToolkitWindow, @escaping @MainActor (String?) -> Void) -> Void
    private let unexportParentHook: @MainActor @Sendable (ToolkitWindow) -> Void

    /// A toolkit's hooks, each called on the main thread.
    ///
    /// - Parameters:
    ///   - name: "GTK 3" or "GTK 4", for messages and `help`.
    ///   - launchContext: A launch context on the display of the window (or of the default
    ///     display for `nil`), stamped with the current time; `nil` when there is no display.
    ///   - parentIdentifier: The XDG portal's identifier of the window as a parent (`x11:<XID>`),
    ///     or `nil` when it has none yet (not realized, or on Wayland).
    ///   - exportParent: Exports the window for the portal on Wayland (xdg-foreign) and calls its
    ///     second argument once, on the main thread, with the identifier (`wayland:<handle>`), or
    ///     at once with `nil` when it cannot be exported.
    ///   - unexportParent: Drops what `exportParent` exported for the window.
    public init(
        name: String,
        launchContext: @escaping @MainActor @Sendable (_ window: ToolkitWindow?) -> GObjectRef<UnsafeMutablePointer<GAppLaunchContext>>?,
        parentIdentifier: @escaping @MainActor @Sendable (_ window: ToolkitWindow) -> String?,
        exportParent: @escaping @MainActor @Sendable (_ window: ToolkitWindow, _ exported: @escaping @MainActor (String?) -> Void) -> Void = { $1(nil) },
        unexportParent: @escaping @MainActor @Sendable (_ window: ToolkitWindow) -> Void = { _ in }
    ) {
        self.name = name
        self.makeContext = launchContext
        self.identifyParent = parentIdentifier
        self.exportParentHook = exportParent
        self.unexportParentHook = unexportParent
    }

    /// A launch context on the display of `window` (the default display for `nil`), stamped with
    /// the current time; `nil` when there is no display.
    @MainActor
    public func launchContext(on window: ToolkitWindow?) -> GObjectRef<UnsafeMutablePointer<GAppLaunchContext>>? {
        makeContext(window)
    }

    /// The XDG portal's identifier of `window` as a parent (`x11:<XID>`), or `nil` when it has
    /// none yet (not realized, or on Wayland, where the handle is exported asynchronously: see
    /// ``exportParent(_:exported:)``).
    @MainActor
    public func parentIdentifier(of window: ToolkitWindow) -> String? {
        identifyParent(window)
    }

    /// Exports `window` for the portal on Wayland (xdg-foreign) and calls `exported` once, on the
    /// main thread, with its identifier (`wayland:<handle>`), or at once with `nil` when it cannot
    /// be exported (not Wayland, not realized, no xdg-foreign). ``unexportParent(_:)`` drops the
    /// handle once the portal call is over.
    @MainActor
    public func exportParent(_ window: ToolkitWindow, exported: @escaping @MainActor (String?) -> Void) {
        exportParentHook(window, exported)
    }

    /// Drops what ``exportParent(_:exported:)`` exported for `window`.
    @MainActor
    public func unexportParent(_ window: ToolkitWindow) {
        unexportParentHook(window)
    }

    /// The app's toolkit, once its module installed it (main thread only).
    ///
    /// Process-wide, except inside ``withIsolatedIntegration(_:isolation:_:)``, where the task and
    /// its children see (and set) their scope's own. Task-local: what runs in no task (a GLib
    /// callback) sees the process's, so a session takes the integration when it is made.
    @MainActor public static var current: ToolkitIntegration? {
        get {
            if let scope = scope.get() { return scope.integration }
            return processWide
        }
        set {
            if let scope = scope.get() {
                scope.integration = newValue
            } else {
                processWide = newValue
            }
        }
    }

    /// Runs `body` with `integration` as ``current`` for the current task and its children only (a
    /// set of ``current`` inside changes it for the scope only), as
    /// `WebviewProviderRegistry.withIsolatedRegistry` does for providers: so that parallel tests
    /// each have their own toolkit. `GLibSupport` cannot see the registry's store (it does not
    /// import `WebviewHost`), hence a scope of its own; a test that wants both nests the two.
    public static func withIsolatedIntegration<Result>(
        _ integration: ToolkitIntegration?,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await scope.withValue(Scope(integration), operation: body, isolation: isolation)
    }

    @MainActor private static var processWide: ToolkitIntegration?
    private static let scope = TaskLocal<Scope?>(wrappedValue: nil)

    /// The integration of one ``withIsolatedIntegration(_:isolation:_:)`` scope.
    private final class Scope: Sendable {
        private let stored: Mutex<ToolkitIntegration?>
        init(_ integration: ToolkitIntegration?) { stored = Mutex(integration) }
        var integration: ToolkitIntegration? {
            get { stored.withLock { $0 } }
            set { stored.withLock { $0 = newValue } }
        }
    }
}

// MARK: - Deprecated: windows as raw pointers

extension ToolkitIntegration {
    /// The hooks with windows as raw `GtkWindow *` pointers and the launch context returned with a
    /// reference the caller releases.
    @available(*, deprecated, renamed: "init(name:launchContext:parentIdentifier:exportParent:unexportParent:)",
        message: "windows are ToolkitWindow handles, and the launch context a GObjectRef")
    public init(
        name: String,
        makeLaunchContext: @escaping @MainActor @Sendable (UnsafeMutableRawPointer?) -> UnsafeMutablePointer<GAppLaunchContext>?,
        parentWindowIdentifier: @escaping @MainActor @Sendable (UnsafeMutableRawPointer) -> String?,
        exportParentWindow: @escaping @MainActor @Sendable (UnsafeMutableRawPointer, @escaping @MainActor (String?) -> Void) -> Void = { $1(nil) },
        unexportParentWindow: @escaping @MainActor @Sendable (UnsafeMutableRawPointer) -> Void = { _ in }
    ) {
        self.init(
            name: name,
            launchContext: { window in makeLaunchContext(window?.rawValue).map { GObjectRef(adopting: $0) } },
            parentIdentifier: { window in parentWindowIdentifier(window.rawValue) },
            exportParent: { window, exported in exportParentWindow(window.rawValue, exported) },
            unexportParent: { window in unexportParentWindow(window.rawValue) })
    }

    /// A launch context on the display of `window` (a `GtkWindow *`), with a reference the
    /// caller releases.
    @available(*, deprecated, renamed: "launchContext(on:)")
    public var makeLaunchContext: @MainActor @Sendable (_ window: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<GAppLaunchContext>? {
        let makeContext = self.makeContext
        return { window in makeContext(window.map(ToolkitWindow.init(rawValue:)))?.passRetained() }
    }

    /// The portal's identifier of `window` (a `GtkWindow *`) as a parent.
    @available(*, deprecated, renamed: "parentIdentifier(of:)")
    public var parentWindowIdentifier: @MainActor @Sendable (_ window: UnsafeMutableRawPointer) -> String? {
        let identifyParent = self.identifyParent
        return { window in identifyParent(ToolkitWindow(rawValue: window)) }
    }

    /// Exports `window` (a `GtkWindow *`) for the portal on Wayland.
    @available(*, deprecated, renamed: "exportParent(_:exported:)")
    public var exportParentWindow: @MainActor @Sendable (_ window: UnsafeMutableRawPointer, _ exported: @escaping @MainActor (String?) -> Void) -> Void {
        let exportParentHook = self.exportParentHook
        return { window, exported in exportParentHook(ToolkitWindow(rawValue: window), exported) }
    }

    /// Drops what ``exportParentWindow`` exported for `window` (a `GtkWindow *`).
    @available(*, deprecated, renamed: "unexportParent(_:)")
    public var unexportParentWindow: @MainActor @Sendable (_ window: UnsafeMutableRawPointer) -> Void {
        let unexportParentHook = self.unexportParentHook
        return { window in unexportParentHook(ToolkitWindow(rawValue: window)) }
    }
}
