#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
public import WebviewHost

/// Forgetting one identity provider's site data in the store a sign-in uses (its sign-out when it
/// has no end-session endpoint): the data WebKit keeps per site is fetched, the sites of the
/// given hosts picked, and only those removed (`webkit_website_data_manager_fetch` / `_remove`).
extension EmbeddedWebviewProvider: WebviewSiteDataClearing {
    @MainActor
    public func clearSiteData(forHosts hosts: [String], parameters: WebviewParameters) async throws(WebAuthError) -> [String] {
        let manager: WebKitDifferences.WebsiteDataManager
        if let custom = parameters.customWebview {
            guard wvh_is_web_view(custom.address) != 0 else {
                throw WebAuthError(.invalidParameters, "The customWebview is not a WebKitWebView.")
            }
            manager = WebKitDifferences.websiteDataManager(ofView: wvh_web_view(custom.address))
        } else if parameters.prefersEphemeralWebBrowserSession {
            return []  // an ephemeral session keeps nothing between sign-ins
        } else {
            manager = WebKitDifferences.websiteDataManager(of: SignInWebContexts.context(ephemeral: false, applicationID: EmbeddedWebviewProvider.applicationID))
        }
        let wanted = hosts.map { $0.lowercased() }
        let fetched: Result<[String], GLibError> = await withCheckedContinuation { continuation in
            Self.removeSites(in: manager, matching: wanted) { continuation.resume(returning: $0) }
        }
        switch fetched {
        case .success(let sites): return sites
        case .failure(let error):
            throw WebAuthError(.providerUnavailable, "The sign-in view's site data could not be deleted: \(error.message)", underlyingError: error)
        }
    }

    /// Whether WebKit's site `name` (a registrable domain, or an address) is `host`'s.
    nonisolated static func site(_ name: String, holds host: String) -> Bool {
        let name = name.lowercased()
        return host == name || host.hasSuffix("." + name)
    }

    /// Fetches every kind of data, removes the sites that hold one of `hosts`; `done` once, on the main thread.
    @MainActor
    private static func removeSites(
        in manager: WebKitDifferences.WebsiteDataManager, matching hosts: [String],
        done: @escaping @MainActor (Result<[String], GLibError>) -> Void
    ) {
        webkit_website_data_manager_fetch(
            manager, WEBKIT_WEBSITE_DATA_ALL, nil, AsyncReadyCallback.function,
            AsyncReadyCallback.userData { _, result in
                var error: UnsafeMutablePointer<GError>?
                let list = webkit_website_data_manager_fetch_finish(manager, result, &error)
                if let error { return done(.failure(GLibError(consuming: error))) }
                var doomed: UnsafeMutablePointer<GList>?
                var names: [String] = []
                var node = list
                while let current = node {
                    if let data = current.pointee.data {
                        let name = webkit_website_data_get_name(OpaquePointer(data)).map { String(cString: $0) } ?? ""
                        if hosts.contains(where: { site(name, holds: $0) }) {
                            doomed = g_list_prepend(doomed, data)
                            names.append(name)
                        }
                    }
                    node = current.pointee.next
                }
                guard let doomed else {
                    g_list_free_full(list, { webkit_website_data_unref(OpaquePointer($0)) })
                    return done(.success([]))
                }
                webkit_website_data_manager_remove(
                    manager, WEBKIT_WEBSITE_DATA_ALL, doomed, nil, AsyncReadyCallback.function,
                    AsyncReadyCallback.userData { _, result in
                        var error: UnsafeMutablePointer<GError>?
                        webkit_website_data_manager_remove_finish(manager, result, &error)
                        g_list_free(doomed)
                        g_list_free_full(list, { webkit_website_data_unref(OpaquePointer($0)) })
                        done(error.map { .failure(GLibError(consuming: $0)) } ?? .success(names.sorted()))
                    })
            })
    }
}
