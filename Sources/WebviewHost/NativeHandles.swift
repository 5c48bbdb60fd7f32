/// An opaque handle to a caller's `GtkWindow`, used as the parent of a window the library owns
/// and as the anchor for launching the browser.
///
/// The host never dereferences it; GTK-aware modules convert it back on the main thread.
public struct WindowHandle: Hashable, @unchecked Sendable {
    /// The `GtkWindow *`.
    public let pointer: UnsafeMutableRawPointer
    public init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}

/// An opaque handle to a caller's `WebKitWebView`, already placed in the caller's own layout.
///
/// The view is used only on the main thread; the provider never destroys, hides, reparents or
/// resizes it.
public struct WebviewHandle: Hashable, @unchecked Sendable {
    /// The `WebKitWebView *`: the way back from a handle (a notification's `webview`) to the
    /// view, `wvh_web_view(handle.pointer)` with the toolkit module's cast, on the main thread.
    public let pointer: UnsafeMutableRawPointer
    public init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}
