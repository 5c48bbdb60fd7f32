#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// The route of the library's window's pages: the app's proxy (``WebviewParameters/networkProxy``)
/// or the desktop's (WebKit's default mode: GIO's default resolver, the ProxyResolver portal in
/// Flatpak). The library's web contexts are shared by every session, so each session of the
/// library's window sets its own route on its context, and the end puts the default back. A
/// caller's view is not touched (its proxy is the app's) unless the app asks for the desktop's
/// there (``EmbeddedWebviewProvider/useDesktopProxy(in:)``, ``applyDesktop(toViewOf:)``).
@MainActor
enum SignInProxy {
    /// Sets `proxy` (or the desktop's, for `nil`) on `store` (`webkit_website_data_manager_set_network_proxy_settings`
    /// in WebKitGTK 4.1, `webkit_network_session_set_proxy_settings` in 6.0).
    ///
    /// When the desktop's proxy carries a user name and password in its URI (`http_proxy=http://user:password@proxy:3128`,
    /// GNOME's settings with authentication), WebKit's network process, which resolves the
    /// desktop's proxy itself, would get them in the URI (and libsoup fails with it): the view is
    /// then given the desktop's proxies without them, with the desktop's ignored hosts, and the
    /// credential answers the proxy's first 407 (``desktopProxiesCarryingCredential()``).
    ///
    /// Returns `true` when the desktop's proxy carried a user name and password and was set without them.
    @discardableResult
    static func apply(_ proxy: NetworkProxy?, to store: WebKitDifferences.DataStore) -> Bool {
        guard let proxy else {
            guard let desktop = desktopProxiesCarryingCredential() else {
                set(WEBKIT_NETWORK_PROXY_MODE_DEFAULT, nil, on: store, unlessAlready: "default")
                return false
            }
            let settings = settings(default: nil, ignoring: desktop.ignoreHosts)
            defer { webkit_network_proxy_settings_free(settings) }
            for (scheme, uri) in desktop.byScheme { webkit_network_proxy_settings_add_proxy_for_scheme(settings, scheme, uri) }
            set(WEBKIT_NETWORK_PROXY_MODE_CUSTOM, settings, on: store, unlessAlready: "desktop \(desktop.byScheme) \(desktop.ignoreHosts)")
            return true
        }
        let settings = settings(default: proxy.url.absoluteString, ignoring: proxy.bypassHosts)
        defer { webkit_network_proxy_settings_free(settings) }
        set(WEBKIT_NETWORK_PROXY_MODE_CUSTOM, settings, on: store, unlessAlready: "app \(proxy.url.absoluteString) \(proxy.bypassHosts)")
        return false
    }

    /// ``EmbeddedWebviewProvider/useDesktopProxy(in:)``: the desktop's proxy on `view`'s store,
    /// which is remembered as given it (``gaveDesktopProxy(toViewOf:)``).
    static func applyDesktop(toViewOf view: WebKitDifferences.WebView) -> Bool {
        let store = WebKitDifferences.store(of: view)
        storesGivenDesktopProxy.insert(UInt(bitPattern: UnsafeRawPointer(store)))
        // Always set: the app may have changed the store's settings since.
        g_object_set_data(UnsafeMutableRawPointer(store).assumingMemoryBound(to: GObject.self), settingsMark, nil)
        return apply(nil, to: store)
    }

    /// Whether the app gave `view`'s store the desktop's proxy with ``applyDesktop(toViewOf:)``.
    static func gaveDesktopProxy(toViewOf view: WebKitDifferences.WebView) -> Bool {
        storesGivenDesktopProxy.contains(UInt(bitPattern: UnsafeRawPointer(WebKitDifferences.store(of: view))))
    }

    /// The stores (by address) of the app's views given the desktop's proxy; a store lives as long
    /// as the app's network session, which apps keep for their run.
    private static var storesGivenDesktopProxy: Set<UInt> = []

    /// Whether the desktop's proxy may carry a user name and password (GNOME's HTTP proxy with
    /// `use-authentication` on, a proxy variable with '@', or the ProxyResolver portal's last
    /// answers with one), without a lookup.
    static var desktopProxyMayCarryCredential: Bool {
        switch resolverKind {
        case nil: false
        case "GProxyResolverGnome": gnomeProxyUsesAuthentication()
        case portalResolver: portalAnswers.map { $0.values.contains { ProxyURI($0).credential != nil } } ?? false
        default: environmentProxyHasUserInfo()
        }
    }

    /// The type name of GIO's default proxy resolver, `nil` without one.
    nonisolated private static var resolverKind: String? {
        guard let resolver = g_proxy_resolver_get_default() else { return nil }
        return g_type_name(wvh_object_type(UnsafeMutableRawPointer(resolver))).map { String(cString: $0) } ?? ""
    }

    /// GIO's resolver in a Flatpak (or with `GTK_USE_PORTAL=1`): each lookup is a D-Bus call to
    /// xdg-desktop-portal, which asks the desktop's resolver (GNOME's writes a user name and
    /// password into the URI when its proxy needs them).
    private static let portalResolver = "GProxyResolverPortal"

    /// What the desktop's proxy is looked up for: the two schemes' proxies for a host nobody
    /// excludes, and (from the portal only, which gives no list of ignored hosts) the loopback
    /// names, whose answer tells whether the desktop reaches them directly.
    private static func probes(for kind: String?) -> [String] {
        let schemes = ["http", "https"].map(probe(for:))
        return kind == portalResolver ? schemes + loopbackProbes.map(\.uri) : schemes
    }

    /// The address whose proxy is the desktop's for `scheme`: a host no desktop excludes.
    nonisolated private static func probe(for scheme: String) -> String { "\(scheme)://login.example.com/" }

    /// The loopback names asked of the portal, and the ignore pattern each gives when the answer is `direct://`.
    private static let loopbackProbes = [
        (uri: "http://localhost/", pattern: "localhost"), (uri: "http://127.0.0.1/", pattern: "127.0.0.0/8"), (uri: "http://[::1]/", pattern: "::1"),
    ]

    /// The ProxyResolver portal's first answer to each probe, as ``lookUpDesktopAhead()`` last
    /// got them (`nil`: never asked in this run).
    private static var portalAnswers: [String: String]?

    /// Asks the desktop's resolver ahead of ``apply(_:to:)``, without blocking the main thread,
    /// when it is the ProxyResolver portal (a D-Bus call each; the other resolvers answer
    /// in-process and are asked when the settings are made). The probes are asked at once, and a
    /// portal that has not answered within ``portalPatience`` is taken as naming no user name or
    /// password (its lookups are cancelled): a sign-in never waits longer for it. `prepare()`
    /// calls it.
    static func lookUpDesktopAhead() async {
        guard let resolver = g_proxy_resolver_get_default(), resolverKind == portalResolver else { return }
        let probes = probes(for: portalResolver)
        let cancellable = g_cancellable_new()
        defer { g_object_unref(UnsafeMutableRawPointer(cancellable)) }
        let deadline = Task { @MainActor in
            guard (try? await Task.sleep(for: portalPatience)) != nil else { return }
            g_cancellable_cancel(cancellable)
        }
        defer { deadline.cancel() }
        let found = PortalAnswers(awaiting: probes.count)
        portalAnswers = await withCheckedContinuation { (continuation: CheckedContinuation<[String: String], Never>) in
            found.whenAll = { continuation.resume(returning: $0) }
            for probe in probes {
                g_proxy_resolver_lookup_async(
                    resolver, probe, cancellable, AsyncReadyCallback.function,
                    AsyncReadyCallback.userData { _, result in
                        let proxies = g_proxy_resolver_lookup_finish(resolver, result, nil)
                        found.answer(probe, proxies.map { StringArray.take($0).first ?? "direct://" })
                    })
            }
        }
    }

    /// Whether the desktop's route can be set without asking the ProxyResolver portal on the main
    /// thread: another resolver, or the portal's answers already had.
    static var desktopRouteKnown: Bool { resolverKind != portalResolver || portalAnswers != nil }

    /// How long a sign-in waits for the ProxyResolver portal's answers.
    static let portalPatience: Duration = .seconds(3)

    /// The portal's answers as they come, handed on once every probe has one (or failed).
    private final class PortalAnswers {
        private var awaiting: Int
        private var answers: [String: String] = [:]
        var whenAll: (([String: String]) -> Void)?

        init(awaiting: Int) { self.awaiting = awaiting }

        func answer(_ probe: String, _ proxy: String?) {
            if let proxy { answers[probe] = proxy }
            awaiting -= 1
            if awaiting == 0 { whenAll?(answers) }
        }
    }

    /// The resolver's first answer to each of `kind`'s probes, asked now (the portal's:
    /// ``portalAnswers`` when ``lookUpDesktopAhead()`` got them, else asked now and kept).
    private static func lookUp(_ resolver: OpaquePointer, kind: String?) -> [String: String] {
        if kind == portalResolver, let portalAnswers { return portalAnswers }
        var answers: [String: String] = [:]
        for probe in probes(for: kind) {
            var error: UnsafeMutablePointer<GError>?
            guard let proxies = g_proxy_resolver_lookup(resolver, probe, nil, &error) else {
                if let error { g_error_free(error) }
                continue
            }
            answers[probe] = StringArray.take(proxies).first ?? "direct://"
        }
        if kind == portalResolver { portalAnswers = answers }
        return answers
    }

    /// `webkit_network_proxy_settings_new`: `uri` for every scheme (`nil`: none), `hosts` reached directly.
    private static func settings(default uri: String?, ignoring hosts: [String]) -> OpaquePointer {
        var hosts: [UnsafeMutablePointer<gchar>?] = hosts.map { g_strdup($0) } + [nil]
        defer { hosts.forEach { g_free($0) } }
        return hosts.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<gchar>?.self, capacity: buffer.count) {
                webkit_network_proxy_settings_new(uri, $0)
            }
        }
    }

    /// The desktop's proxies for `http` and `https` (GIO's default resolver) without user info,
    /// and its ignored hosts (GNOME's `ignore-hosts`; from the portal, the loopback names it
    /// reaches directly; else `no_proxy`), when one of them carries a
    /// user name and password; each such credential is held for its proxy's first 407
    /// (``ProxyAuthentication/seed(_:for:)``). `nil` when none carries one.
    private static func desktopProxiesCarryingCredential() -> (byScheme: [(String, String)], ignoreHosts: [String])? {
        // A lookup can block (a PAC file, WPAD): made only where a user name can be, on the main
        // thread (the portal's are made ahead, asynchronously: lookUpDesktopAhead()).
        // The portal's answers are looked into always (they were had ahead, or are asked now and
        // kept); another resolver only when its settings say a password may be there.
        let kind = resolverKind
        let mayCarry = kind == portalResolver || desktopProxyMayCarryCredential
        guard mayCarry, let resolver = g_proxy_resolver_get_default() else { return nil }
        let answers = lookUp(resolver, kind: kind)
        var byScheme: [(String, String)] = []
        var carried = false
        for scheme in ["http", "https"] {
            guard let answer = answers[probe(for: scheme)] else { continue }
            let proxy = ProxyURI(answer)
            if let credential = proxy.credential, let authority = proxy.authority {
                ProxyAuthentication.seed(credential, for: authority)
                carried = true
            }
            byScheme.append((scheme, proxy.uri))
        }
        guard carried else { return nil }
        switch kind {
        case "GProxyResolverGnome": return (byScheme, gnomeIgnoredHosts())
        case portalResolver: return (byScheme, loopbackProbes.filter { answers[$0.uri] == "direct://" }.map(\.pattern))
        default: return (byScheme, environmentIgnoredHosts())
        }
    }

    /// GNOME's `org.gnome.system.proxy` `ignore-hosts` (what its resolver reads), `[]` without the schema.
    private static func gnomeIgnoredHosts() -> [String] {
        gnomeSettings("org.gnome.system.proxy") { StringArray.take(g_settings_get_strv($0, "ignore-hosts")) } ?? []
    }

    /// Whether GNOME's HTTP proxy has `use-authentication` on (its resolver then writes the user
    /// name and password into the proxy's URI).
    private static func gnomeProxyUsesAuthentication() -> Bool {
        gnomeSettings("org.gnome.system.proxy.http") { g_settings_get_boolean($0, "use-authentication") != 0 } ?? false
    }

    /// `read` of the settings of `schema` (`g_settings_new`), `nil` when the schema is not installed.
    private static func gnomeSettings<Value>(_ schema: String, _ read: (UnsafeMutablePointer<GSettings>) -> Value) -> Value? {
        guard let source = g_settings_schema_source_get_default(), let found = g_settings_schema_source_lookup(source, schema, 1) else { return nil }
        g_settings_schema_unref(found)
        guard let settings = g_settings_new(schema) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(settings)) }
        return read(settings)
    }

    /// Whether one of the environment's proxy variables has a user name in it (`user:password@`).
    private static func environmentProxyHasUserInfo() -> Bool {
        let environment = ProcessInfo.processInfo.environment
        return ["http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"].contains { environment[$0]?.contains("@") == true }
    }

    /// The environment's `no_proxy` (or `NO_PROXY`), comma-separated.
    private static func environmentIgnoredHosts() -> [String] {
        let environment = ProcessInfo.processInfo.environment
        let list = environment["no_proxy"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["NO_PROXY"] ?? ""
        return list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A proxy's 407 in the view: the credential the view and SignIn's requests share
    /// (``ProxyAuthentication``), asked once (the app's `ask` in `questions`, the session's, else
    /// the library's dialog over `window`); kept by WebKit for this run only (`WEBKIT_CREDENTIAL_PERSISTENCE_FOR_SESSION`),
    /// never on disk. No answer (the question cancelled, or refused ``ProxyAuthentication/maximumAttempts``
    /// times, or refused with a 401: ``isRefusal(_:)``) cancels the request and calls `unanswered`
    /// with the `network` error that says which; with nobody to ask, WebKit's default handling (`false`).
    static func authenticate(
        _ request: WebKitDifferences.AuthenticationRequest, over window: WebKitDifferences.Window?,
        questions: ProxyAuthentication.Questions, unanswered: @escaping @MainActor (WebAuthError) -> Void
    ) -> Bool {
        let realm = webkit_authentication_request_get_realm(request).map { String(cString: $0) }
        if webkit_authentication_request_is_for_proxy(request) == 0 {
            // The proxy's 401 to the answer it was given (see isRefusal): WebKit would send another
            // answer to the page, not to the proxy, and keeps sending the refused one to the proxy
            // for the rest of the run; the sign-in ends saying so (SignIn's requests ask afresh).
            guard let realm, let proxy = proxiesByRealm[realm] else { return false }
            webkit_authentication_request_cancel(request)
            ProxyAuthentication.refusedForGood(proxy)
            unanswered(WebAuthError(
                .network,
                "The proxy \(proxy) refused the user name and password with 401 instead of 407, so the sign-in window cannot give it another "
                    + "until the app restarts (WebKit keeps the refused one); check them with your administrator, then restart the app and sign in again."))
            return true
        }
        guard questions.canAsk, let host = webkit_authentication_request_get_host(request) else { return false }
        let proxy = "\(String(cString: host)):\(webkit_authentication_request_get_port(request))"
        let retrying = webkit_authentication_request_is_retry(request) != 0
        if let realm { proxiesByRealm[realm] = proxy }
        let basic = webkit_authentication_request_get_scheme(request) == WEBKIT_AUTHENTICATION_SCHEME_HTTP_BASIC
        let over = window.map { WindowHandle(address: UnsafeMutableRawPointer($0)) }
        g_object_ref(UnsafeMutableRawPointer(request))
        let held = UnsafeSendableRequest(request)
        Task { @MainActor in
            let request = held.request
            defer { g_object_unref(UnsafeMutableRawPointer(request)) }
            guard let credential = await ProxyAuthentication.answer(
                proxy: proxy, realm: realm, basic: basic, retrying: retrying, over: over, questions: questions)
            else {
                webkit_authentication_request_cancel(request)
                unanswered(unansweredError(proxy: proxy))
                return
            }
            let answer = webkit_credential_new(credential.user, credential.password, WEBKIT_CREDENTIAL_PERSISTENCE_FOR_SESSION)
            webkit_authentication_request_authenticate(request, answer)
            webkit_credential_free(answer)
        }
        return true
    }

    /// The proxy (`host:port`) that asked with each realm, for this run.
    private static var proxiesByRealm: [String: String] = [:]

    /// Whether `request`, a password challenge for the page (not for a proxy), is a proxy refusing
    /// the answer it was given with `401` and `WWW-Authenticate` (tinyproxy does; squid says 407
    /// again, which WebKit gives as a proxy's retry). Told by its realm, the one a proxy asked
    /// with before in this run.
    static func isRefusal(_ request: WebKitDifferences.AuthenticationRequest) -> Bool {
        guard webkit_authentication_request_is_for_proxy(request) == 0,
            [WEBKIT_AUTHENTICATION_SCHEME_HTTP_BASIC, WEBKIT_AUTHENTICATION_SCHEME_HTTP_DIGEST].contains(webkit_authentication_request_get_scheme(request)),
            let realm = webkit_authentication_request_get_realm(request).map({ String(cString: $0) })
        else { return false }
        return proxiesByRealm[realm] != nil
    }

    /// Why `proxy` got no answer: it refused too many (which settles its question), or none was given.
    private static func unansweredError(proxy: String) -> WebAuthError {
        if ProxyAuthentication.refusedTooOften(proxy) {
            return WebAuthError(
                .network,
                "The proxy \(proxy) refused the user name and password \(ProxyAuthentication.maximumAttempts) times; "
                    + "check them with your administrator, then sign in again.")
        }
        return WebAuthError(
            .network,
            "The proxy \(proxy) asks for a user name and password to load the sign-in page and was given none: the question was cancelled.")
    }

    /// The `help` line: the proxy the desktop gives (GIO's default resolver, named by its type),
    /// which the view's pages and SignIn's requests take unless the app gives its own.
    nonisolated static func helpNote() -> String {
        let probe = probe(for: "https")
        guard let resolver = g_proxy_resolver_get_default(), let kind = resolverKind else { return "proxy: none (GIO has no proxy resolver)" }
        var error: UnsafeMutablePointer<GError>?
        guard let proxies = g_proxy_resolver_lookup(resolver, probe, nil, &error) else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "?"
            if let error { g_error_free(error) }
            return "proxy: the desktop's settings cannot be read (\(kind): \(message))"
        }
        defer { g_strfreev(proxies) }
        let first = proxies[0].map { String(cString: $0) } ?? "direct://"
        // Never the password: a URI's user info is left out, and said to be there.
        let carriesCredential = ProxyURI(first).credential != nil
        let route = first == "direct://" ? "none, direct connections"
            : ProxyURI.redacting(first) + (carriesCredential ? " with a user name and password (not shown; they answer its first 407)" : "")
        return "proxy: \(route) (the desktop's, from \(kind), for \(probe)); the sign-in pages and SignIn's requests take it unless the app sets networkProxy; "
            + "a proxy's password is asked once, in the library's dialog unless the app sets ProxyAuthentication.ask, and kept in memory only"
    }

    /// Waits until WebKit's network process has taken the proxy settings last set on `store`
    /// (returns at once when it has). The settings go to the network process on the UI process's
    /// own connection, the page's request on the web process's: with nothing between them, a busy
    /// machine let a sign-in page's request go out on the network session's previous route (the
    /// desktop's proxy with its password in the URI, which the proxy answered with an error page
    /// the view showed as the sign-in page, and the session waited). So each time settings are
    /// set, a fetch of the store's cookies follows them on the same connection (``set(_:_:on:unlessAlready:)``),
    /// answered after them: once it is, every later request takes the new route.
    static func settle(_ store: WebKitDifferences.DataStore) async {
        await settling[UInt(bitPattern: UnsafeRawPointer(store))]?.value
    }

    /// The round trip that followed the settings last set on each store (by address).
    private static var settling: [UInt: Task<Void, Never>] = [:]

    /// Starts the round trip ``settle(_:)`` waits for: a cookie fetch on `store`'s connection.
    private static func startRoundTrip(after store: WebKitDifferences.DataStore) {
        let manager = WebKitDifferences.websiteDataManager(of: store)
        settling[UInt(bitPattern: UnsafeRawPointer(store))] = Task { @MainActor in
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                webkit_website_data_manager_fetch(
                    manager, WEBKIT_WEBSITE_DATA_COOKIES, nil, AsyncReadyCallback.function,
                    AsyncReadyCallback.userData { _, result in
                        let list = webkit_website_data_manager_fetch_finish(manager, result, nil)
                        g_list_free_full(list) { webkit_website_data_unref(OpaquePointer($0)) }
                        continuation.resume()
                    })
            }
        }
    }

    /// Closes every connection `store` holds: WebKit aborts a network session's connections
    /// when its proxy settings change (to no proxy here; the library's sessions use the
    /// desktop's or the app's). For a store that is retired (``SignInWebContexts/retire(_:)``).
    static func closeConnections(of store: WebKitDifferences.DataStore) {
        set(WEBKIT_NETWORK_PROXY_MODE_NO_PROXY, nil, on: store)
    }

    /// Sets `mode` and `settings` on `store`, unless the settings `described` are already
    /// there (kept on the store). WebKit aborts every request of a store whose settings change,
    /// and may do so to a request made before the change (see `EmbeddedWebviewSession`'s
    /// `watchCancellation`); setting the same default mode again aborts nothing (measured,
    /// WebKitGTK 2.50), the same custom settings again was not measured: they are not set again.
    /// `nil`: always.
    private static func set(
        _ mode: WebKitNetworkProxyMode, _ settings: OpaquePointer?, on store: WebKitDifferences.DataStore, unlessAlready described: String? = nil
    ) {
        let object = UnsafeMutableRawPointer(store).assumingMemoryBound(to: GObject.self)
        if let described {
            if let current = g_object_get_data(object, settingsMark), String(cString: current.assumingMemoryBound(to: CChar.self)) == described { return }
            g_object_set_data_full(object, settingsMark, g_strdup(described)) { g_free($0) }
        } else {
            g_object_set_data(object, settingsMark, nil)
        }
        #if WEBKITGTK_6
        webkit_network_session_set_proxy_settings(store, mode, settings)
        #else
        webkit_website_data_manager_set_network_proxy_settings(webkit_web_context_get_website_data_manager(store), mode, settings)
        #endif
        startRoundTrip(after: store)
    }
}

/// The key of the proxy settings the library last set on a store (`g_object_set_data`).
private let settingsMark = "wvh-proxy-settings"

/// A `WebKitAuthenticationRequest *` the session holds a reference to until the answer, used on
/// the main actor only.
private struct UnsafeSendableRequest: @unchecked Sendable {
    let request: WebKitDifferences.AuthenticationRequest
    init(_ request: WebKitDifferences.AuthenticationRequest) { self.request = request }
}
