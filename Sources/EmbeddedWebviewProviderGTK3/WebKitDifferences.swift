import CGLib
import CWebKitGTK3
import Foundation
import GLibSupport
import WebviewHost
import WebviewHostGTK3

/// The few calls where WebKitGTK 4.1 (with GTK 3) and WebKitGTK 6.0 (with GTK 4) differ, for the
/// embedded provider's shared code (`Sources/EmbeddedWebviewShared`), which is compiled once per
/// toolkit. This is the WebKitGTK 4.1 side: data lives in a `WebKitWebContext`'s
/// `WebKitWebsiteDataManager`, views are made with `webkit_web_view_new_with_context`.
@MainActor
enum WebKitDifferences {
    /// Where a sign-in window's web data lives: a `WebKitWebContext` (the views of one context
    /// share its web process pool, cookies and storage).
    typealias DataStore = UnsafeMutablePointer<WebKitWebContext>
    /// A `WebKitURIRequest *` (derivable in 4.1, so a typed pointer).
    typealias URIRequest = UnsafeMutablePointer<WebKitURIRequest>
    /// A `WebKitUserContentManager *` (derivable in 4.1).
    typealias ContentManager = UnsafeMutablePointer<WebKitUserContentManager>
    /// A `WebKitAuthenticationRequest *` (derivable in 4.1, so a typed pointer): `authenticate`'s argument.
    typealias AuthenticationRequest = UnsafeMutablePointer<WebKitAuthenticationRequest>

    static func makeEphemeralStore() -> DataStore {
        let context = webkit_web_context_new_ephemeral()!
        secure(webkit_web_context_get_website_data_manager(context))
        askForLanguages(in: context)
        return context
    }

    /// A persistent store under the two folders, its cookies in `cookieFile` (SQLite). Starts
    /// WebKit's network process now (the caller holds a tight umask for the files it makes).
    static func makePersistentStore(dataDirectory: URL, cacheDirectory: URL, cookieFile: URL) -> DataStore {
        let manager = wvh_website_data_manager_new(dataDirectory.path, cacheDirectory.path)!
        // Cookies are kept in memory unless given a file.
        webkit_cookie_manager_set_persistent_storage(
            webkit_website_data_manager_get_cookie_manager(manager), cookieFile.path, WEBKIT_COOKIE_PERSISTENT_STORAGE_SQLITE)
        let context = webkit_web_context_new_with_website_data_manager(manager)!
        webkit_website_data_manager_fetch(manager, WEBKIT_WEBSITE_DATA_COOKIES, nil, nil, nil)
        g_object_unref(manager)  // the context holds it
        secure(webkit_web_context_get_website_data_manager(context))
        askForLanguages(in: context)
        return context
    }

    /// The sign-in pages' `Accept-Language` and `navigator.languages`: the library's languages
    /// (``WebviewHost/WebviewLocalization/preferredLanguages``), so that the identity provider
    /// answers in the language of the window around its page. Without any, WebKit's own choice
    /// (the same environment variables) stays.
    private static func askForLanguages(in context: DataStore) {
        let languages = SignInLanguages.tags()
        guard !languages.isEmpty else { return }
        SignInLanguages.withCStrings(languages) { webkit_web_context_set_preferred_languages(context, $0) }
    }

    /// A new view in `store` (floating, as GTK 3 widgets are made).
    static func makeWebView(in store: DataStore) -> WebView {
        wvh_web_view(webkit_web_view_new_with_context(store))
    }

    /// Resolves `host` ahead of the sign-in page (`webkit_web_context_prefetch_dns`).
    static func prefetchDNS(_ host: String, in store: DataStore) {
        webkit_web_context_prefetch_dns(store, host)
    }

    /// A `WebKitWebsiteDataManager *` (derivable in 4.1).
    typealias WebsiteDataManager = UnsafeMutablePointer<WebKitWebsiteDataManager>

    /// The data manager of `store` (its context's).
    static func websiteDataManager(of store: DataStore) -> WebsiteDataManager {
        webkit_web_context_get_website_data_manager(store)!
    }

    /// The data manager of a view's own store (a caller's view: its context's).
    static func websiteDataManager(ofView view: WebView) -> WebsiteDataManager {
        webkit_web_context_get_website_data_manager(webkit_web_view_get_context(view))!
    }

    /// Deletes every kind of data in `store`; `completion` runs once on the main thread.
    static func clearAllData(in store: DataStore, completion: @escaping @MainActor (GLibError?) -> Void) {
        let manager = webkit_web_context_get_website_data_manager(store)
        webkit_website_data_manager_clear(
            manager, WEBKIT_WEBSITE_DATA_ALL, 0, nil, AsyncReadyCallback.function,
            AsyncReadyCallback.userData { _, result in
                var error: UnsafeMutablePointer<GError>?
                webkit_website_data_manager_clear_finish(manager, result, &error)
                completion(error.map { GLibError(consuming: $0) })
            })
    }

    /// The view's `WebKitUserContentManager` (`webkit_web_view_get_user_content_manager`).
    static func contentManager(of view: WebView) -> ContentManager {
        webkit_web_view_get_user_content_manager(view)!
    }

    /// Registers the page-to-library message channel `name` in the page's own script world
    /// (`webkit_user_content_manager_register_script_message_handler`); false if it is taken.
    static func registerMessages(_ manager: ContentManager, name: String) -> Bool {
        webkit_user_content_manager_register_script_message_handler(manager, name) != 0
    }

    /// `webkit_user_content_manager_unregister_script_message_handler`.
    static func unregisterMessages(_ manager: ContentManager, name: String) {
        webkit_user_content_manager_unregister_script_message_handler(manager, name)
    }

    /// A `JSCValue *` and its `JSCContext *` (`script-message-with-reply-received`'s value).
    typealias JSValue = UnsafeMutablePointer<JSCValue>
    typealias JSContext = UnsafeMutablePointer<JSCContext>

    /// `webkit_user_content_manager_register_script_message_handler_with_reply` in the script
    /// world `world`: only that world's scripts see `window.webkit.messageHandlers.<name>`.
    static func registerMessagesWithReply(_ manager: ContentManager, name: String, world: String) -> Bool {
        webkit_user_content_manager_register_script_message_handler_with_reply(manager, name, world) != 0
    }

    /// Takes `name` out of the script world `world`.
    static func unregisterMessages(_ manager: ContentManager, name: String, world: String) {
        webkit_user_content_manager_unregister_script_message_handler_in_world(manager, name, world)
    }

    /// The argument of `script-message-received`: a `WebKitJavascriptResult *` in 4.1 (boxed, so opaque).
    typealias ScriptMessage = OpaquePointer

    /// The text of a `script-message-received` argument.
    static func messageText(_ argument: ScriptMessage?) -> String? {
        guard let argument,
            let value = webkit_javascript_result_get_js_value(argument),
            let text = jsc_value_to_string(value)
        else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// The window holding `view` (`gtk_widget_get_toplevel`), when it is in one.
    static func toplevelWindow(of view: WebView) -> Window? {
        guard let toplevel = gtk_widget_get_toplevel(wvh_widget(view)), wvh_is_window(toplevel) != 0 else { return nil }
        return wvh_window(toplevel)
    }

    /// The toolkit other apps are launched through: the one the app installed
    /// (``ToolkitIntegration/current``), else GTK 3's (`ToolkitIntegration.gtk3`).
    static var integration: ToolkitIntegration { ToolkitIntegration.current ?? .gtk3 }

    /// Destroys a toplevel the library made (`gtk_widget_destroy`).
    static func destroyWindow(_ window: some GObjectPointer) {
        LibraryWindow.destroy(window)
    }

    /// Sets `WEBKIT_TLS_ERRORS_POLICY_FAIL` (never bypass an untrusted certificate) and turns off
    /// WebKit's persistent credential storage. With it on, WebKit asks the person's keyring
    /// (libsecret, over D-Bus) around every question for a password, a PIN or a proxy's password,
    /// and a keyring that does not answer held each question for D-Bus's 25 s. The library's own
    /// answers are for this run only (proxy passwords, PINs), so they lose nothing. What does
    /// change: WebKit's own dialog for a page's Basic or Digest password no longer offers
    /// "Remember password" (`webkit_authentication_request_can_save_credentials`), and a
    /// password saved through it before is not filled in.
    private static func secure(_ manager: UnsafeMutablePointer<WebKitWebsiteDataManager>?) {
        webkit_website_data_manager_set_tls_errors_policy(manager, WEBKIT_TLS_ERRORS_POLICY_FAIL)
        webkit_website_data_manager_set_persistent_credential_storage_enabled(manager, 0)
    }

    /// Whether `view` keeps nothing on disk (`webkit_web_view_is_ephemeral`): WebKit sends no Kerberos ticket there.
    static func isEphemeral(_ view: WebView) -> Bool { webkit_web_view_is_ephemeral(view) != 0 }

    /// Puts `child` (shown) at the end of a question's message area (`gtk_box_pack_start`).
    static func appendToQuestion(_ child: Widget, _ area: Widget?) {
        guard let area else { return }
        gtk_box_pack_start(wvh_box(area), child, 1, 1, 0)
        gtk_widget_show_all(child)
    }

    /// Adds `row` to `list` (`gtk_container_add`, which wraps it in a `GtkListBoxRow`).
    static func appendRow(_ row: Widget, to list: Widget) {
        gtk_container_add(wvh_container(list), row)
    }

    /// The text in `entry` (`gtk_entry_get_text`).
    static func text(ofEntry entry: Widget) -> String {
        gtk_entry_get_text(wvh_entry(entry)).map { String(cString: $0) } ?? ""
    }

    /// Puts `text` in `entry` (`gtk_entry_set_text`).
    static func setText(_ text: String, ofEntry entry: Widget) {
        gtk_entry_set_text(wvh_entry(entry), text)
    }
}
