import CGLib
import CWebKitGTK3
import GLibSupport

/// What the sign-in surface (`SignInSurface`) does differently in WebKitGTK 4.1.
extension WebKitDifferences {
    /// A `WebKitContextMenu *` (derivable in 4.1, so a typed pointer).
    typealias ContextMenu = UnsafeMutablePointer<WebKitContextMenu>
    /// A `WebKitContextMenuItem *` (derivable in 4.1).
    typealias ContextMenuItem = UnsafeMutablePointer<WebKitContextMenuItem>
    /// A `WebKitFileChooserRequest *` (derivable in 4.1).
    typealias FileChooserRequest = UnsafeMutablePointer<WebKitFileChooserRequest>
    /// A `WebKitColorChooserRequest *` (derivable in 4.1).
    typealias ColorChooserRequest = UnsafeMutablePointer<WebKitColorChooserRequest>
    /// A `WebKitDownload *` (derivable in 4.1).
    typealias Download = UnsafeMutablePointer<WebKitDownload>
    /// A `WebKitHitTestResult *` (derivable in 4.1).
    typealias HitTestResult = UnsafeMutablePointer<WebKitHitTestResult>

    /// The store `view` belongs to: its `WebKitWebContext`, which also emits `download-started` for its downloads.
    static func store(of view: WebView) -> DataStore {
        webkit_web_view_get_context(view)!
    }

    /// A `context-menu` handler in 4.1's shape (menu, `GdkEvent`, hit test result); `body` gets
    /// the menu and returns `true` to show none.
    static func contextMenuHandler(_ body: @escaping @MainActor (ContextMenu?) -> Bool) -> SignalHandler {
        .threePointersReturningBool { (menu: ContextMenu?, _: UnsafeMutablePointer<GdkEvent>?, _: HitTestResult?) in body(menu) }
    }
}
