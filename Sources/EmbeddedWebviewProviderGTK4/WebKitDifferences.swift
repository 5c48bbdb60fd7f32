import CGLib
import CWebKitGTK4
import Foundation
import GLibSupport
import WebviewHost
import WebviewHostGTK4

/// The few calls where WebKitGTK 4.1 (with GTK 3) and WebKitGTK 6.0 (with GTK 4) differ, for the
/// embedded provider's shared code (`Sources/EmbeddedWebviewShared`), which is compiled once per
/// toolkit. This is the WebKitGTK 6.0 side: data lives in a `WebKitNetworkSession` (persistent
/// per app, or ephemeral), and views are built with `g_object_new` in a session. WebKitGTK 6.0
/// always runs web processes sandboxed and swaps processes on cross-site navigations; nothing
/// here depends on either.
@MainActor
enum WebKitDifferences {
    /// Where a sign-in window's web data lives: a `WebKitNetworkSession *` (final in 6.0, so opaque).
    typealias DataStore = OpaquePointer
    /// A `WebKitURIRequest *` (final in 6.0, so opaque).
    typealias URIRequest = OpaquePointer
    /// A `WebKitUserContentManager *` (final in 6.0, so opaque).
    typealias ContentManager = OpaquePointer
    /// A `WebKitAuthenticationRequest *` (final in 6.0, so opaque): `authenticate`'s argument.
    typealias AuthenticationRequest = OpaquePointer

    static func makeEphemeralStore() -> DataStore {
        askForLanguages()
        let session = webkit_network_session_new_ephemeral()!
        secure(session)
        return session
    }

    /// Sets `WEBKIT_TLS_ERRORS_POLICY_FAIL` (never bypass an untrusted certificate) and turns off
    /// WebKit's persistent credential storage. With it on, WebKit asks the person's keyring
    /// (libsecret, over D-Bus) around every question for a password, a PIN or a proxy's password,
    /// and a keyring that does not answer held each question for D-Bus's 25 s. The library's own
    /// answers are for this run only (proxy passwords, PINs), so they lose nothing. What does
    /// change: WebKit's own dialog for a page's Basic or Digest password no longer offers
    /// "Remember password" (`webkit_authentication_request_can_save_credentials`), and a
    /// password saved through it before is not filled in.
    private static func secure(_ session: OpaquePointer) {
        webkit_network_session_set_tls_errors_policy(session, WEBKIT_TLS_ERRORS_POLICY_FAIL)
        webkit_network_session_set_persistent_credential_storage_enabled(session, 0)
    }

    /// A persistent store under the two folders, its cookies in `cookieFile` (SQLite). Starts
    /// WebKit's network process now (the caller holds a tight umask for the files it makes).
    static func makePersistentStore(dataDirectory: URL, cacheDirectory: URL, cookieFile: URL) -> DataStore {
        askForLanguages()
        let session = webkit_network_session_new(dataDirectory.path, cacheDirectory.path)!
        // Cookies are kept in memory unless given a file.
        webkit_cookie_manager_set_persistent_storage(
            webkit_network_session_get_cookie_manager(session), cookieFile.path, WEBKIT_COOKIE_PERSISTENT_STORAGE_SQLITE)
        secure(session)
        webkit_website_data_manager_fetch(
            webkit_network_session_get_website_data_manager(session), WEBKIT_WEBSITE_DATA_COOKIES, nil, nil, nil)
        return session
    }

    /// The sign-in pages' `Accept-Language` and `navigator.languages`: the library's languages
    /// (``WebviewHost/WebviewLocalization/preferredLanguages``). In WebKitGTK 6.0 they belong to
    /// the process's default web context, which the app's own views share: those ask for the
    /// same languages then (WebKit's own choice gave "C" under `LC_ALL=C.UTF-8 LANGUAGE=fr`).
    /// Without any language nothing is set.
    private static func askForLanguages() {
        let languages = SignInLanguages.tags()
        guard !languages.isEmpty else { return }
        SignInLanguages.withCStrings(languages) { webkit_web_context_set_preferred_languages(webkit_web_context_get_default(), $0) }
    }

    /// A new view in `store` (`g_object_new` with `network-session`: 6.0 has no other way).
    static func makeWebView(in store: DataStore) -> WebView {
        wvh_web_view(wvh_web_view_new_in_session(store))
    }

    /// Resolves `host` ahead of the sign-in page (`webkit_network_session_prefetch_dns`).
    static func prefetchDNS(_ host: String, in store: DataStore) {
        webkit_network_session_prefetch_dns(store, host)
    }

    /// A `WebKitWebsiteDataManager *` (final in 6.0: opaque).
    typealias WebsiteDataManager = OpaquePointer

    /// The data manager of `store` (its network session's).
    static func websiteDataManager(of store: DataStore) -> WebsiteDataManager {
        webkit_network_session_get_website_data_manager(store)!
    }

    /// The data manager of a view's own store (a caller's view: its network session's).
    static func websiteDataManager(ofView view: WebView) -> WebsiteDataManager {
        webkit_network_session_get_website_data_manager(webkit_web_view_get_network_session(view))!
    }

    /// Deletes every kind of data in `store`; `completion` runs once on the main thread.
    static func clearAllData(in store: DataStore, completion: @escaping @MainActor (GLibError?) -> Void) {
        let manager = webkit_network_session_get_website_data_manager(store)
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
        webkit_user_content_manager_register_script_message_handler(manager, name, nil) != 0
    }

    /// `webkit_user_content_manager_unregister_script_message_handler`.
    static func unregisterMessages(_ manager: ContentManager, name: String) {
        webkit_user_content_manager_unregister_script_message_handler(manager, name, nil)
    }

    /// A `JSCValue *` and its `JSCContext *` (`script-message-with-reply-received`'s value).
    typealias JSValue = OpaquePointer
    typealias JSContext = OpaquePointer

    /// `webkit_user_content_manager_register_script_message_handler_with_reply` in the script
    /// world `world`: only that world's scripts see `window.webkit.messageHandlers.<name>`.
    static func registerMessagesWithReply(_ manager: ContentManager, name: String, world: String) -> Bool {
        webkit_user_content_manager_register_script_message_handler_with_reply(manager, name, world) != 0
    }

    /// Takes `name` out of the script world `world`.
    static func unregisterMessages(_ manager: ContentManager, name: String, world: String) {
        webkit_user_content_manager_unregister_script_message_handler(manager, name, world)
    }

    /// The argument of `script-message-received`: a `JSCValue *` in 6.0 (final, so opaque).
    typealias ScriptMessage = OpaquePointer

    /// The text of a `script-message-received` argument.
    static func messageText(_ argument: ScriptMessage?) -> String? {
        guard let argument, let text = jsc_value_to_string(argument) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// The window holding `view` (`gtk_widget_get_root`), when it is in one.
    static func toplevelWindow(of view: WebView) -> Window? {
        guard let root = gtk_widget_get_root(wvh_widget(view)), wvh_is_window(root.objectAddress) != 0 else { return nil }
        return wvh_window(root.objectAddress)
    }

    /// The toolkit other apps are launched through: the one the app installed
    /// (``ToolkitIntegration/current``), else GTK 4's (`ToolkitIntegration.gtk4`).
    static var integration: ToolkitIntegration { ToolkitIntegration.current ?? .gtk4 }

    /// Destroys a toplevel the library made (`gtk_window_destroy`).
    static func destroyWindow(_ window: some GObjectPointer) {
        LibraryWindow.destroy(window)
    }

    /// Whether `view`'s network session keeps nothing on disk (`webkit_network_session_is_ephemeral`):
    /// WebKit sends no Kerberos ticket there.
    static func isEphemeral(_ view: WebView) -> Bool {
        webkit_web_view_get_network_session(view).map { webkit_network_session_is_ephemeral($0) != 0 } ?? false
    }

    /// Puts `child` at the end of a question's message area (`gtk_box_append`).
    static func appendToQuestion(_ child: Widget, _ area: Widget?) {
        guard let area else { return }
        gtk_box_append(wvh_box(area), child)
    }

    /// Adds `row` to `list` (`gtk_list_box_append`, which wraps it in a `GtkListBoxRow`).
    static func appendRow(_ row: Widget, to list: Widget) {
        gtk_list_box_append(wvh_list_box(list), row)
    }

    /// The text in `entry` (`gtk_editable_get_text`).
    static func text(ofEntry entry: Widget) -> String {
        gtk_editable_get_text(OpaquePointer(entry)).map { String(cString: $0) } ?? ""
    }

    /// Puts `text` in `entry` (`gtk_editable_set_text`).
    static func setText(_ text: String, ofEntry entry: Widget) {
        gtk_editable_set_text(OpaquePointer(entry), text)
    }
}
