#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import WebviewHost

/// The route of the library's window's pages: the app's proxy (``WebviewParameters/networkProxy``)
/// or the desktop's (WebKit's default mode: GIO's default resolver, the ProxyResolver portal in
/// Flatpak). The library's web contexts are shared by every session, so each session of the
/// library's window sets its own route on its context, and the end puts the default back. A
/// caller's view is not touched: its proxy is the app's.
@MainActor
enum SignInProxy {
    /// Sets `proxy` (or the desktop's, for `nil`) on `store` (`webkit_website_data_manager_set_network_proxy_settings`
    /// in WebKitGTK 4.1, `webkit_network_session_set_proxy_settings` in 6.0).
    static func apply(_ proxy: NetworkProxy?, to store: WebKitDifferences.DataStore) {
        guard let proxy else {
            set(WEBKIT_NETWORK_PROXY_MODE_DEFAULT, nil, on: store)
            return
        }
        var hosts: [UnsafeMutablePointer<gchar>?] = proxy.bypassHosts.map { g_strdup($0) } + [nil]
        defer { hosts.forEach { g_free($0) } }
        let settings = hosts.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<gchar>?.self, capacity: buffer.count) {
                webkit_network_proxy_settings_new(proxy.url.absoluteString, $0)
            }
        }
        defer { webkit_network_proxy_settings_free(settings) }
        set(WEBKIT_NETWORK_PROXY_MODE_CUSTOM, settings, on: store)
    }

    private static func set(_ mode: WebKitNetworkProxyMode, _ settings: OpaquePointer?, on store: WebKitDifferences.DataStore) {
        #if WEBKITGTK_6
        webkit_network_session_set_proxy_settings(store, mode, settings)
        #else
        webkit_website_data_manager_set_network_proxy_settings(webkit_web_context_get_website_data_manager(store), mode, settings)
        #endif
    }
}
