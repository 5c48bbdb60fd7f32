/// A toplevel window of the app's toolkit (a `GtkWindow *` of GTK 3 or GTK 4), as
/// ``ToolkitIntegration``'s hooks take it: the toolkit-neutral modules pass it along without
/// reading it, and only the toolkit's module (which checks `GTK_IS_WINDOW`) turns it back into a
/// `GtkWindow *`, on the main thread. It holds no reference: the caller keeps the window alive.
///
/// ```swift
/// let parent = ToolkitWindow(window)                    // an UnsafeMutablePointer<GtkWindow>
/// let anchor = ToolkitWindow(rawValue: handle.pointer)  // from WebviewHost's WindowHandle
/// ```
public struct ToolkitWindow: RawRepresentable, Hashable, @unchecked Sendable {
    /// The `GtkWindow *`.
    public let rawValue: UnsafeMutableRawPointer

    public init(rawValue: UnsafeMutableRawPointer) { self.rawValue = rawValue }

    /// The window `window` points at (`UnsafeMutablePointer<GtkWindow>`, or any GObject pointer
    /// type); the toolkit's hooks ignore what is not a `GtkWindow`.
    public init(_ window: some GObjectPointer) { self.rawValue = window.objectAddress }
}
