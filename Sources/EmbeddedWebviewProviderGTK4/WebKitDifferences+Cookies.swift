import CGLib
import CWebKitGTK4

extension WebKitDifferences {
    /// A `WebKitCookieManager *` (final in 6.0, so opaque).
    typealias CookieManager = OpaquePointer

    /// The cookie manager of a library store (`webkit_network_session_get_cookie_manager`).
    static func cookieManager(of store: DataStore) -> CookieManager {
        webkit_network_session_get_cookie_manager(store)!
    }

    /// The cookie manager of a view's own network session (a caller's view: the app's).
    static func cookieManager(ofView view: WebView) -> CookieManager {
        webkit_network_session_get_cookie_manager(webkit_web_view_get_network_session(view))!
    }
}
