import CWebKitGTK
import Foundation
import GLibSupport

/// The WebKit contexts of library-owned sign-in windows: one persistent and one ephemeral, each
/// made on first use and kept for the life of the process. TLS errors fail closed in both.
@MainActor
enum SignInWebContexts {
    private static var persistent: UnsafeMutablePointer<WebKitWebContext>?
    private static var ephemeral: UnsafeMutablePointer<WebKitWebContext>?

    /// The context for a session; `ephemeral` shares nothing with the persistent one.
    static func context(ephemeral wantsEphemeral: Bool) -> UnsafeMutablePointer<WebKitWebContext> {
        if wantsEphemeral {
            if let ephemeral { return ephemeral }
            let context = webkit_web_context_new_ephemeral()!
            failOnTLSErrors(context)
            ephemeral = context
            return context
        }
        if let persistent { return persistent }
        // Ours, 0700, before WebKit makes them with its own modes (see PrivateFolders).
        PrivateFolders.prepare(dataDirectory)
        PrivateFolders.prepare(cacheDirectory)
        let cookieFile = dataDirectory.appendingPathComponent("cookies.sqlite")
        PrivateFolders.createPrivateFile(cookieFile)
        let manager = wvh_website_data_manager_new(dataDirectory.path, cacheDirectory.path)!
        // Cookies are kept in memory unless given a file.
        let cookies = webkit_website_data_manager_get_cookie_manager(manager)
        webkit_cookie_manager_set_persistent_storage(cookies, cookieFile.path, WEBKIT_COOKIE_PERSISTENT_STORAGE_SQLITE)
        // WebKit's network process writes the data; started now under umask 077 (if it is not
        // running yet), the files it creates are 0600 and its folders 0700. The umask is the
        // process's for the length of this call only, and only ever tighter.
        let previousMask = umask(0o077)
        let context = webkit_web_context_new_with_website_data_manager(manager)!
        webkit_website_data_manager_fetch(manager, WEBKIT_WEBSITE_DATA_COOKIES, nil, nil, nil)
        umask(previousMask)
        g_object_unref(manager)  // the context holds it
        failOnTLSErrors(context)
        persistent = context
        return context
    }

    /// `$XDG_DATA_HOME/<application id>/webview-host`: the persistent context's data and cookies.
    static var dataDirectory: URL {
        URL(fileURLWithPath: String(cString: g_get_user_data_dir()))
            .appendingPathComponent(applicationID).appendingPathComponent("webview-host")
    }

    /// `$XDG_CACHE_HOME/<application id>/webview-host`: the persistent context's caches.
    static var cacheDirectory: URL {
        URL(fileURLWithPath: String(cString: g_get_user_cache_dir()))
            .appendingPathComponent(applicationID).appendingPathComponent("webview-host")
    }

    /// ``EmbeddedWebviewProvider/applicationID``, else the default `GApplication`'s id, else the program name.
    static var applicationID: String {
        if let id = EmbeddedWebviewProvider.applicationID, !id.isEmpty { return id }
        if let application = g_application_get_default(), let id = g_application_get_application_id(application) {
            return String(cString: id)
        }
        if let name = g_get_prgname() { return String(cString: name) }
        return "webview-host"
    }

    /// Removes group and other permission bits from everything the persistent context wrote so
    /// far (nothing when it was never made). Called when a session of the library's window ends.
    static func tightenPersistentFolders() {
        guard persistent != nil else { return }
        PrivateFolders.tighten(dataDirectory)
        PrivateFolders.tighten(cacheDirectory)
    }

    /// Empties the ephemeral context, so a session starts with nothing from an earlier one.
    static func resetEphemeral() async throws {
        guard let ephemeral else { return }
        try await clear(ephemeral)
    }

    /// Deletes everything the persistent context stored; removes its folders if it was never made.
    static func clearPersistentData() async throws {
        if let persistent {
            try await clear(persistent)
        } else {
            for folder in [dataDirectory, cacheDirectory] where FileManager.default.fileExists(atPath: folder.path) {
                try FileManager.default.removeItem(at: folder)
            }
        }
    }

    /// `webkit_website_data_manager_clear` for every kind of data, awaited.
    private static func clear(_ context: UnsafeMutablePointer<WebKitWebContext>) async throws {
        let manager = webkit_web_context_get_website_data_manager(context)
        let error = await withCheckedContinuation { continuation in
            let box = Unmanaged.passRetained(CompletionBox(continuation)).toOpaque()
            webkit_website_data_manager_clear(
                manager, WEBKIT_WEBSITE_DATA_ALL, 0, nil,
                { source, result, data in
                    var error: UnsafeMutablePointer<GError>?
                    webkit_website_data_manager_clear_finish(
                        UnsafeMutableRawPointer(source)?.assumingMemoryBound(to: WebKitWebsiteDataManager.self), result, &error)
                    let box = Unmanaged<CompletionBox>.fromOpaque(data!).takeRetainedValue()
                    box.continuation.resume(returning: error.map { GLibError(consuming: $0) })
                }, box)
        }
        if let error { throw error }
    }

    /// Sets `WEBKIT_TLS_ERRORS_POLICY_FAIL` (never bypass an untrusted certificate).
    private static func failOnTLSErrors(_ context: UnsafeMutablePointer<WebKitWebContext>) {
        webkit_website_data_manager_set_tls_errors_policy(
            webkit_web_context_get_website_data_manager(context), WEBKIT_TLS_ERRORS_POLICY_FAIL)
    }
}
