#if WEBKITGTK_6
public import CWebKitGTK4
#else
public import CWebKitGTK3
#endif
public import WebviewHost

// The typed handles of this toolkit (as libportal-gtk3 and -gtk4 make an XdpParent from a
// GtkWindow): the compiler takes this toolkit's window and view, and nothing else.

extension WindowHandle {
    /// The app's window, as a sign-in window's parent and the browser's anchor. The handle holds
    /// no reference: keep the window alive while a call that has it runs.
    ///
    /// ```swift
    /// WebviewParameters(parentWindow: WindowHandle(window))   // UnsafeMutablePointer<GtkWindow>
    /// WindowHandle(wvh_window(widget))                         // from gtk_window_new's GtkWidget *
    /// ```
    public init(_ window: UnsafeMutablePointer<GtkWindow>) { self.init(address: UnsafeMutableRawPointer(window)) }

    /// The window (main thread only; the handle does not keep it alive).
    public var window: UnsafeMutablePointer<GtkWindow> { address.assumingMemoryBound(to: GtkWindow.self) }
}

extension WebviewHandle {
    /// The app's own view, for a sign-in in it (`WebviewParameters(customWebview:)`). The handle
    /// holds no reference: keep the view alive while a call that has it runs.
    public init(_ view: UnsafeMutablePointer<WebKitWebView>) { self.init(address: UnsafeMutableRawPointer(view)) }

    /// The view (main thread only; the handle does not keep it alive): a notification's or a
    /// step's view back as a `WebKitWebView *`.
    public var webView: UnsafeMutablePointer<WebKitWebView> { address.assumingMemoryBound(to: WebKitWebView.self) }
}
