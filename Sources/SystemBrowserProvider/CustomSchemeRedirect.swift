import CGLib
import Foundation
public import GLibSupport
public import WebviewHost

/// Custom-scheme redirects (`com.example.app:/oauth2redirect`, RFC 8252 section 7.1).
///
/// The browser sends the redirect to the scheme's handler (see ``CustomSchemeRegistration``),
/// which starts the app a second time with the URI. With `G_APPLICATION_HANDLES_OPEN`, the second
/// instance's `GApplication` passes the URI over D-Bus to the running one and exits; there its
/// `open` signal hands it to the host, which ends the waiting sign-in with it
/// (``WebviewHost/WebAuthSession/handleOpenURL(_:)-(String)``):
///
/// ```swift
/// let app = g_application_new("com.example.App", G_APPLICATION_HANDLES_OPEN)!  // or a GtkApplication
/// let redirects = try CustomSchemeRedirect.connect(to: ApplicationHandle(app))  // keep it while the app runs
/// g_application_run(app, argc, argv)
/// ```
public enum CustomSchemeRedirect {
    /// Attaches a handler to the `open` signal of `application` (a `GApplication`, or a subclass
    /// such as `GtkApplication`) that hands every URI it is opened with to the waiting sign-in
    /// through the host (``WebviewHost/WebAuthSession/handleOpenURL(_:)-(String)``); URIs that are
    /// not the running sign-in's redirect URI are left alone. Apps that handle `open` themselves
    /// call `WebAuthSession.handleOpenURL` with each URI instead. Main thread.
    ///
    /// If `application` is not registered yet and lacks `G_APPLICATION_HANDLES_OPEN`, the flag
    /// is added (a second instance started with the URI then hands it over instead of starting
    /// its own app). The handler stays connected until ``Connection/disconnect()`` or until the
    /// returned ``Connection`` is released: keep it for as long as the app runs.
    ///
    /// - Throws: `invalidParameters` when `application` is not a `GApplication`, or is already
    ///   registered without `G_APPLICATION_HANDLES_OPEN` (it could never receive the URI).
    @MainActor
    public static func connect(to application: ApplicationHandle) throws(WebAuthError) -> Connection {
        guard let app = application.application else {
            throw WebAuthError(
                .invalidParameters, "CustomSchemeRedirect.connect(to:) needs a GApplication (or GtkApplication).")
        }
        let flags = g_application_get_flags(app)
        if flags.rawValue & G_APPLICATION_HANDLES_OPEN.rawValue == 0 {
            guard g_application_get_is_registered(app) == 0 else {
                throw WebAuthError(
                    .invalidParameters,
                    "The application is already registered without G_APPLICATION_HANDLES_OPEN, so it can never "
                        + "receive the sign-in's redirect URI; create it with that flag.")
            }
            g_application_set_flags(app, GApplicationFlags(flags.rawValue | G_APPLICATION_HANDLES_OPEN.rawValue))
        }
        let connection = Connection()
        connection.connections.connect(
            app, "open",
            .open { uris, _ in
                for uri in uris { WebAuthSession.handleOpenURL(uri) }
            })
        return connection
    }

    /// The same, for `application` as a raw `GApplication *`.
    @available(*, deprecated, renamed: "connect(to:)", message: "pass the application as an ApplicationHandle")
    @MainActor
    public static func connect(to application: UnsafeMutableRawPointer) throws(WebAuthError) -> Connection {
        try connect(to: ApplicationHandle(rawValue: application))
    }

    /// The `open` handler ``connect(to:)`` attached; it is disconnected by ``disconnect()`` or
    /// when this object is released.
    @MainActor
    public final class Connection {
        fileprivate let connections = SignalConnections()

        fileprivate init() {}

        /// Whether the handler is still connected.
        public var isConnected: Bool { connections.count > 0 }

        /// Disconnects the handler. Calling it again does nothing.
        public func disconnect() {
            connections.disconnectAll()
        }
    }
}
