#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport

/// Where the library-owned sign-in windows keep web data: one persistent store and one
/// ephemeral one, each made on first use and kept for the life of the process (a
/// `WebKitWebContext` with its data manager in WebKitGTK 4.1, a `WebKitNetworkSession` in 6.0;
/// ``WebKitDifferences`` makes them). TLS errors fail closed in both.
@MainActor
enum SignInWebContexts {
    private static var persistent: WebKitDifferences.DataStore?
    private static var ephemeral: WebKitDifferences.DataStore?

    /// Whether a store was made: WebKit's network process has started with this process's
    /// environment (what `EmbeddedWebviewProvider.allowNegotiate(to:)` sets is read only then).
    static var started: Bool { persistent != nil || ephemeral != nil }

    /// The store for a session; `ephemeral` shares nothing with the persistent one.
    static func context(ephemeral wantsEphemeral: Bool) -> WebKitDifferences.DataStore {
        if wantsEphemeral {
            if let ephemeral { return ephemeral }
            let store = WebKitDifferences.makeEphemeralStore()
            ephemeral = store
            return store
        }
        if let persistent { return persistent }
        // Ours, 0700, before WebKit makes them with its own modes (see PrivateFolders).
        PrivateFolders.prepare(dataDirectory)
        PrivateFolders.prepare(cacheDirectory)
        let cookieFile = dataDirectory.appendingPathComponent("cookies.sqlite")
        PrivateFolders.createPrivateFile(cookieFile)
        // WebKit's network process writes the data; started now under umask 077 (if it is not
        // running yet), the files it creates are 0600 and its folders 0700. The umask is the
        // process's for the length of this call only, and only ever tighter.
        let previousMask = umask(0o077)
        let store = WebKitDifferences.makePersistentStore(
            dataDirectory: dataDirectory, cacheDirectory: cacheDirectory, cookieFile: cookieFile)
        umask(previousMask)
        persistent = store
        return store
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

    /// ``EmbeddedWebviewProvider/applicationID``, else the default `GApplication`'s id, else the
    /// program name (`g_get_prgname()`, else the executable's name: GTK 3's `gtk_init` sets the
    /// former from `argv[0]`, GTK 4's `gtk_init()` takes no arguments and leaves it unset, and
    /// one shared fallback folder would mix the cookies of every such app).
    static var applicationID: String {
        if let id = EmbeddedWebviewProvider.applicationID, !id.isEmpty { return id }
        if let application = g_application_get_default(), let id = g_application_get_application_id(application) {
            return String(cString: id)
        }
        if let name = g_get_prgname(), name.pointee != 0 { return String(cString: name) }
        let executable = ProcessInfo.processInfo.processName
        return executable.isEmpty ? "webview-host" : executable
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
    private static func clear(_ store: WebKitDifferences.DataStore) async throws {
        let error = await withCheckedContinuation { continuation in
            WebKitDifferences.clearAllData(in: store) { continuation.resume(returning: $0) }
        }
        if let error { throw error }
    }
}
