#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport

/// Where the library-owned sign-in windows keep web data: one persistent store per application id
/// (``EmbeddedWebviewProvider/applicationID``; an app has one) and one ephemeral one, each made on
/// first use and kept until a session in it offers a client certificate (a `WebKitWebContext`
/// with its data manager in WebKitGTK 4.1, a `WebKitNetworkSession` in 6.0; ``WebKitDifferences``
/// makes them). TLS errors fail closed in all.
///
/// A client certificate lives on in the store that offered it: WebKit keeps the TLS connection
/// it authenticated (the next sign-in to that server gets it back, no certificate asked), and a
/// token stays logged in while a connection holds its key (its PIN is not asked again). WebKit
/// has no call that drops a connection, so a store that offered a certificate is retired when
/// its session ends (``retire(ephemeral:applicationID:)``): its connections closed, the next
/// session gets a new store (over the same folders for the persistent one: cookies stay). A
/// session with the app's own certificate runs in a store of its own (``makeSessionStore()``),
/// retired the same way.
@MainActor
enum SignInWebContexts {
    private static var persistent: [String: WebKitDifferences.DataStore] = [:]
    private static var ephemeral: WebKitDifferences.DataStore?
    /// The id the default resolved to when its persistent store was made: kept for the life of
    /// the process, as the store is (a `GApplication` registered later does not move it).
    private static var defaultApplicationID: String?

    /// The application ids whose persistent store was made (retired ones included).
    private static var madeFor: Set<String> = []
    /// Whether a store was ever made (retired ones included).
    private static var madeAny = false

    /// Whether a store was made: WebKit's network process has started with this process's
    /// environment (what `EmbeddedWebviewProvider.allowNegotiate(to:)` sets is read only then).
    static var started: Bool { madeAny }

    /// Gives a shared store just made the desktop's route, which WebKit's network process takes
    /// while nobody waits (a prewarmed window's store is made well before its session): the
    /// session's `prepare()` then finds it in place (``SignInProxy/settle(_:)``), unless the app
    /// gives its own proxy. No session uses the store yet, so nothing is aborted. In a Flatpak
    /// whose ProxyResolver portal was not asked yet, the store keeps WebKit's default until a
    /// session's `prepare()` has the portal's answer (no D-Bus call waited for on the main thread).
    private static func routeAhead(_ store: WebKitDifferences.DataStore) {
        guard SignInProxy.desktopRouteKnown else { return }
        SignInProxy.apply(nil, to: store)
    }

    /// The store for a session; `ephemeral` shares nothing with the persistent one. The persistent
    /// one is `applicationID`'s (``EmbeddedWebviewProvider/applicationID`` as set, `nil` for the
    /// default: see ``resolvedApplicationID(_:)``).
    static func context(ephemeral wantsEphemeral: Bool, applicationID: String?) -> WebKitDifferences.DataStore {
        if wantsEphemeral {
            if let ephemeral { return ephemeral }
            let store = WebKitDifferences.makeEphemeralStore()
            ephemeral = store
            madeAny = true
            routeAhead(store)
            return store
        }
        let id = resolvedApplicationID(applicationID)
        if let store = persistent[id] { return store }
        let dataDirectory = dataDirectory(of: id), cacheDirectory = cacheDirectory(of: id)
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
        persistent[id] = store
        madeFor.insert(id)
        madeAny = true
        routeAhead(store)
        if applicationID?.isEmpty ?? true { defaultApplicationID = id }
        return store
    }

    /// A new ephemeral store for one session (the app's client certificate is its identity):
    /// nothing of the shared stores in it, nothing of it kept. The caller owns it and ends it with
    /// ``retire(_:)``.
    static func makeSessionStore() -> WebKitDifferences.DataStore {
        madeAny = true
        return WebKitDifferences.makeEphemeralStore()
    }

    /// Takes the shared store a session offered a client certificate in out of use: its
    /// connections are closed (see ``retire(_:)``), and the next session makes a new one (the
    /// persistent one over the same folders, so its cookies and data stay). Its prewarmed window
    /// goes with it.
    static func retire(ephemeral wantsEphemeral: Bool, applicationID: String?) {
        let store: WebKitDifferences.DataStore?
        if wantsEphemeral {
            store = ephemeral
            ephemeral = nil
        } else {
            store = persistent.removeValue(forKey: resolvedApplicationID(applicationID))
        }
        guard let store else { return }
        PrewarmedWindows.discard(ephemeral: wantsEphemeral, applicationID: applicationID)
        retire(store)
    }

    /// Closes every connection of `store` and drops the library's reference to it (views still
    /// in it keep it until they go). WebKit offers no call that closes connections; a change of
    /// the store's proxy settings does (libsoup aborts the session's connections), and the TLS
    /// connections that held a token's key let it go, which logs the token out in WebKit's
    /// network process. The store is not used again: a load in it after the change was seen to
    /// wait 10 s and fail.
    static func retire(_ store: WebKitDifferences.DataStore) {
        SignInProxy.closeConnections(of: store)
        g_object_unref(UnsafeMutableRawPointer(store))
    }

    /// `$XDG_DATA_HOME/<application id>/webview-host`: the persistent context's data and cookies.
    static func dataDirectory(of applicationID: String) -> URL {
        URL(fileURLWithPath: String(cString: g_get_user_data_dir()))
            .appendingPathComponent(applicationID).appendingPathComponent("webview-host")
    }

    /// `$XDG_CACHE_HOME/<application id>/webview-host`: the persistent context's caches.
    static func cacheDirectory(of applicationID: String) -> URL {
        URL(fileURLWithPath: String(cString: g_get_user_cache_dir()))
            .appendingPathComponent(applicationID).appendingPathComponent("webview-host")
    }

    /// `configured` (``EmbeddedWebviewProvider/applicationID``), else what the default resolved to
    /// when its store was made, else the default `GApplication`'s id, else the program name (`g_get_prgname()`, else the executable's name: GTK 3's
    /// `gtk_init` sets the former from `argv[0]`, GTK 4's `gtk_init()` takes no arguments and
    /// leaves it unset, and one shared fallback folder would mix the cookies of every such app).
    static func resolvedApplicationID(_ configured: String?) -> String {
        if let id = configured, !id.isEmpty { return id }
        if let defaultApplicationID { return defaultApplicationID }
        if let application = g_application_get_default(), let id = g_application_get_application_id(application) {
            return String(cString: id)
        }
        if let name = g_get_prgname(), name.pointee != 0 { return String(cString: name) }
        let executable = ProcessInfo.processInfo.processName
        return executable.isEmpty ? "webview-host" : executable
    }

    /// Removes group and other permission bits from everything `applicationID`'s persistent
    /// context wrote so far (nothing when it was never made). Called when a session of the
    /// library's window ends.
    static func tightenPersistentFolders(applicationID: String?) {
        let id = resolvedApplicationID(applicationID)
        guard madeFor.contains(id) else { return }
        PrivateFolders.tighten(dataDirectory(of: id))
        PrivateFolders.tighten(cacheDirectory(of: id))
    }

    /// Empties the ephemeral context, so a session starts with nothing from an earlier one.
    static func resetEphemeral() async throws {
        guard let ephemeral else { return }
        try await clear(ephemeral)
    }

    /// Deletes everything `applicationID`'s persistent context stored; removes its folders if it
    /// was never made.
    static func clearPersistentData(applicationID: String?) async throws {
        let id = resolvedApplicationID(applicationID)
        if let store = persistent[id] {
            try await clear(store)
        } else {
            for folder in [dataDirectory(of: id), cacheDirectory(of: id)] where FileManager.default.fileExists(atPath: folder.path) {
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
