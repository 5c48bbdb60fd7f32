/// A caller's `GtkWindow`, used as the parent of a window the library owns and as the anchor for
/// launching the browser.
///
/// Make one with the toolkit module's typed initializer, which takes a `GtkWindow *` of that
/// toolkit and nothing else: `WindowHandle(window)` with `import WebviewHostGTK3` or
/// `import WebviewHostGTK4` (a `GtkWidget *` from `gtk_window_new` goes through the cast,
/// `WindowHandle(wvh_window(widget))`). The handle holds no reference: the caller keeps the
/// window alive. The host never dereferences it; the toolkit modules turn it back into the
/// window on the main thread.
public struct WindowHandle: Hashable, @unchecked Sendable {
    /// The `GtkWindow *`, for the package's toolkit modules (an app reads `window` from its
    /// toolkit module).
    package let address: UnsafeMutableRawPointer

    package init(address: UnsafeMutableRawPointer) { self.address = address }

    /// A handle from any pointer, checked only at run time (something that is not a `GtkWindow`
    /// is then ignored as a parent).
    @available(*, deprecated, message: "use WindowHandle(_:) from WebviewHostGTK3 or WebviewHostGTK4, which takes a GtkWindow pointer")
    public init(_ pointer: UnsafeMutableRawPointer) { self.address = pointer }

    /// The `GtkWindow *` as a raw pointer.
    @available(*, deprecated, message: "use `window` from WebviewHostGTK3 or WebviewHostGTK4, a GtkWindow pointer")
    public var pointer: UnsafeMutableRawPointer { address }
}

/// A caller's `WebKitWebView`, already placed in the caller's own layout.
///
/// Make one with the toolkit module's typed initializer, `WebviewHandle(view)` with a
/// `WebKitWebView *` (`import WebviewHostGTK3` or `WebviewHostGTK4`), and get the view back from
/// one (a notification's `webview`, a ``WebAuthStep``'s) with its `webView` property, on the main
/// thread. The view is used only on the main thread; the provider never destroys, hides,
/// reparents or resizes it.
public struct WebviewHandle: Hashable, @unchecked Sendable {
    /// The `WebKitWebView *`, for the package's toolkit modules (an app reads `webView` from its
    /// toolkit module).
    package let address: UnsafeMutableRawPointer

    package init(address: UnsafeMutableRawPointer) { self.address = address }

    /// A handle from any pointer, checked only at run time (something that is not a
    /// `WebKitWebView` then ends the sign-in with `invalidParameters`).
    @available(*, deprecated, message: "use WebviewHandle(_:) from WebviewHostGTK3 or WebviewHostGTK4, which takes a WebKitWebView pointer")
    public init(_ pointer: UnsafeMutableRawPointer) { self.address = pointer }

    /// The `WebKitWebView *` as a raw pointer.
    @available(*, deprecated, message: "use `webView` from WebviewHostGTK3 or WebviewHostGTK4, a WebKitWebView pointer")
    public var pointer: UnsafeMutableRawPointer { address }
}
