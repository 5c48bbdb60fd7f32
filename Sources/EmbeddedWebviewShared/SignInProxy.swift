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

    /// The `help` line: the proxy the desktop gives (GIO's default resolver, named by its type),
    /// which the view's pages and SignIn's requests take unless the app gives its own.
    nonisolated static func helpNote() -> String {
        let probe = "https://login.example.com/"
        guard let resolver = g_proxy_resolver_get_default() else { return "proxy: none (GIO has no proxy resolver)" }
        let kind = g_type_name(wvh_object_type(UnsafeMutableRawPointer(resolver))).map { String(cString: $0) } ?? "?"
        var error: UnsafeMutablePointer<GError>?
        guard let proxies = g_proxy_resolver_lookup(resolver, probe, nil, &error) else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "?"
            if let error { g_error_free(error) }
            return "proxy: the desktop's settings cannot be read (\(kind): \(message))"
        }
        defer { g_strfreev(proxies) }
        let first = proxies[0].map { String(cString: $0) } ?? "direct://"
        let route = first == "direct://" ? "none, direct connections" : first
        return "proxy: \(route) (the desktop's, from \(kind), for \(probe)); the sign-in pages and SignIn's requests take it unless the app sets networkProxy"
    }

    private static func set(_ mode: WebKitNetworkProxyMode, _ settings: OpaquePointer?, on store: WebKitDifferences.DataStore) {
        #if WEBKITGTK_6
        webkit_network_session_set_proxy_settings(store, mode, settings)
        #else
        webkit_website_data_manager_set_network_proxy_settings(webkit_web_context_get_website_data_manager(store), mode, settings)
        #endif
    }
}
