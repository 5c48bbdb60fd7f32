import CGLib
import CWebKitGTK4
import GLibSupport

/// What the sign-in surface (`SignInSurface`) does differently in WebKitGTK 6.0.
extension WebKitDifferences {
    /// A `WebKitContextMenu *` (final in 6.0, so opaque).
    typealias ContextMenu = OpaquePointer
    /// A `WebKitContextMenuItem *` (final in 6.0, so opaque).
    typealias ContextMenuItem = OpaquePointer
    /// A `WebKitFileChooserRequest *` (final in 6.0, so opaque).
    typealias FileChooserRequest = OpaquePointer
    /// A `WebKitColorChooserRequest *` (final in 6.0, so opaque).
    typealias ColorChooserRequest = OpaquePointer
    /// A `WebKitDownload *` (final in 6.0, so opaque).
    typealias Download = OpaquePointer
    /// A `WebKitHitTestResult *` (final in 6.0, so opaque).
    typealias HitTestResult = OpaquePointer

    /// The store `view` belongs to: its `WebKitNetworkSession`, which also emits `download-started` for its downloads.
    static func store(of view: WebView) -> DataStore {
        webkit_web_view_get_network_session(view)!
    }

    /// A `context-menu` handler in 6.0's shape (menu, hit test result); `body` gets the menu and
    /// returns `true` to show none.
    static func contextMenuHandler(_ body: @escaping @MainActor (ContextMenu?) -> Bool) -> SignalHandler {
        .twoPointersReturningBool { (menu: ContextMenu?, _: HitTestResult?) in body(menu) }
    }
}
