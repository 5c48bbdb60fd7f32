import CGLib
import CWebKitGTK4
import GLibSupport

/// What the sign-in surface (`SignInSurface`) does differently in WebKitGTK 6.0.
extension WebKitDifferences {
    /// A `WebKitContextMenu *` (final in 6.0, so opaque).
    typealias ContextMenu = OpaquePointer

    /// The object that emits `download-started` for `view`'s downloads: its `WebKitNetworkSession`.
    static func downloadSource(of view: WebView) -> OpaquePointer {
        webkit_web_view_get_network_session(view)!
    }

    /// A `context-menu` handler in 6.0's shape (menu, hit test result); `body` gets the menu and
    /// returns `true` to show none.
    static func contextMenuHandler(_ body: @escaping @MainActor (UnsafeMutableRawPointer?) -> Bool) -> SignalHandler {
        .twoPointersReturningBool { menu, _ in body(menu) }
    }
}
