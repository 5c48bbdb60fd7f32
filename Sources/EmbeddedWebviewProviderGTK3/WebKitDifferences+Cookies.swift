import CGLib
import CWebKitGTK3

extension WebKitDifferences {
    /// A `WebKitCookieManager *` (derivable in 4.1, so a typed pointer).
    typealias CookieManager = UnsafeMutablePointer<WebKitCookieManager>

    /// The cookie manager of a library store (its context's data manager's).
    static func cookieManager(of store: DataStore) -> CookieManager {
        webkit_website_data_manager_get_cookie_manager(websiteDataManager(of: store))!
    }

    /// The cookie manager of a view's own store (a caller's view: its context's).
    static func cookieManager(ofView view: WebView) -> CookieManager {
        webkit_website_data_manager_get_cookie_manager(websiteDataManager(ofView: view))!
    }
}
