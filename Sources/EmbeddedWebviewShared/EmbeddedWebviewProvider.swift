#if WEBKITGTK_6
import CWebKitGTK4
import WebviewHostGTK4
#else
import CWebKitGTK3
import WebviewHostGTK3
#endif
import CGLib
import SecurityKeys
public import WebviewHost

/// Signs in inside the app with WebKitGTK (MSAL's `MSALWebviewTypeWKWebView` on Linux): in a modal
/// window the library owns, or in the caller's own `WebKitWebView` (``WebviewParameters/customWebview``).
///
/// The library-owned window uses one WebKit context per mode for the life of the process: a
/// persistent one under `$XDG_DATA_HOME/<application id>/webview-host/` (single sign-on between
/// sign-ins of the app), or, with ``WebviewParameters/prefersEphemeralWebBrowserSession``, an
/// ephemeral one that is emptied before each session. A caller-supplied view keeps its own context.
/// The persistent folders are private to the user (`0700`, files `0600`).
///
/// Whatever the page does, the session ends once and the code never reaches the network: windows
/// the page opens (even from a timer) stay in the view; links to other apps follow
/// ``WebviewParameters/externalSchemes`` (a gesture first, then the allow-list or the person's
/// answer); a `form_post` response ends with `unsupportedResponseMode`. In a caller's view the
/// provider turns on `javascript-can-open-windows-automatically` for the session (the caller's
/// value is restored at the end), and at the end stops the view and ends its web process, so the
/// page's scripts cannot go on to the redirect URI, and disconnects every handler before the
/// caller resumes: from then on the view is the app's and the library never loads anything in it.
/// See the EmbeddedSignIn article for what the view shows then and why.
public struct EmbeddedWebviewProvider: WebviewProvider {
    /// Also makes the library's dialog the question for a proxy's password (407) when the app set
    /// no `ProxyAuthentication.ask`: for the view's pages and for `SignIn`'s requests alike.
    public init() {
        ProxyPasswordQuestion.install()
    }

    public var id: WebviewProviderID { .embedded }
    public var displayName: String { "Embedded web view (WebKitGTK)" }
    public var kind: WebviewProviderKind { .embeddedView }
    public var requiresDisplay: Bool { true }
    public var supportsCustomWebview: Bool { true }

    /// What the view answers by itself at work (the README's "At work" section says more).
    public func helpNotes(in environment: WebviewEnvironment) -> [String] {
        [
            "Entra ID's device challenge (PKeyAuth): answered as a device without a registered key; PKeyAuth/1.0 in the user agent at Entra ID and AD FS authorities",
            "the device broker's single-sign-on cookie (Microsoft's PRT SSO cookie): sent to the Entra ID authority's host when a registered broker gives one (SignIn)",
            "client certificates: the app's (WebviewParameters.clientCertificate: PEM, PKCS #12, PKCS #11 URI) or its own chooser's, "
                + "else the person's smart cards and PKCS #11 tokens (p11-kit) in the library's chooser and PIN dialog; "
                + "none anywhere ends the sign-in with clientCertificateRequired",
            NegotiateHosts.helpNote,
            SignInProxy.helpNote(),
            SecurityKeyDevice.helpNote(environment: environment.variables),
        ]
    }

    public func availability(in environment: WebviewEnvironment) -> WebviewProviderAvailability {
        guard environment.hasDisplay else {
            return .unavailable(
                reason: "No graphical session (neither DISPLAY nor WAYLAND_DISPLAY is set), so no web view can be shown.")
        }
        return .available
    }

    /// - Throws: `invalidParameters` when `customWebview` is not a `WebKitWebView` or
    ///   `parentWindow` is not a `GtkWindow`; `providerUnavailable` when GTK has no display open
    ///   (call `gtk_init` first).
    @MainActor
    public func makeSession(for request: WebAuthRequest, reporter: WebAuthSessionReporter) throws
        -> any WebviewProviderSession
    {
        guard gdk_display_get_default() != nil else {
            throw WebAuthError(
                .providerUnavailable,
                "GTK has no display open; call gtk_init() before starting an embedded sign-in.")
        }
        if let view = request.parameters.customWebview, wvh_is_web_view(view.address) == 0 {
            throw WebAuthError(.invalidParameters, "The customWebview is not a WebKitWebView.")
        }
        if let parent = request.parameters.parentWindow, wvh_is_window(parent.address) == 0 {
            throw WebAuthError(.invalidParameters, "The parentWindow is not a GtkWindow.")
        }
        return EmbeddedWebviewSession(request: request, reporter: reporter)
    }

    /// Prepares the next library-owned sign-in window ahead of time, so it shows the page almost at
    /// once: a hidden window whose view has its web process running, with `authorityHost` (the
    /// sign-in server's host name, e.g. `login.microsoftonline.com`) resolved. Call it when the
    /// app shows its sign-in button, say. Main thread; does nothing without a display.
    ///
    /// The next sign-in in the same context (persistent, or ephemeral when `ephemeral` is `true`)
    /// without a `customWebview` adopts that window; a window serves one session only, so no page,
    /// history or state passes from one sign-in to the next. With `keepReady`, a fresh window is
    /// prepared after each such session ends (after the caller has its outcome), until
    /// ``releasePrewarmed()``.
    ///
    /// The window is realized at the default ``WebviewParameters/windowSize``, unmapped. A session
    /// that asks for another size still adopts it; on GTK 4 it is then realized again at that
    /// size, which takes back part of the gain (`WebAuthSession.prewarm` passes the session's size).
    ///
    /// Cost: one hidden window with a `WebKitWebView` and, while no other view of the context is
    /// open, a WebKit web process (tens of MiB; the benchmark in `Tests/Benchmarks` reports it).
    @MainActor
    public static func prewarm(ephemeral: Bool = false, authorityHost: String? = nil, keepReady: Bool = false) {
        PrewarmedWindows.prewarm(ephemeral: ephemeral, host: authorityHost, keepReady: keepReady)
    }

    /// ``WebviewProvider`` warm start (`WebAuthSession.prewarm`): prepares the library's window
    /// for a session with `parameters`; nothing for a caller's own view.
    @MainActor
    public func prewarm(parameters: WebviewParameters, authorityHost: String?) {
        guard parameters.customWebview == nil else { return }
        PrewarmedWindows.prewarm(
            ephemeral: parameters.prefersEphemeralWebBrowserSession, host: authorityHost, keepReady: false,
            size: parameters.windowSize)
    }

    /// Whether a prewarmed window waits for the next sign-in in that context.
    @MainActor
    public static func isPrewarmed(ephemeral: Bool = false) -> Bool {
        PrewarmedWindows.isReady(ephemeral: ephemeral)
    }

    /// Destroys the prewarmed windows (and their web processes, once nothing else uses them) and
    /// stops preparing new ones. Main thread.
    @MainActor
    public static func releasePrewarmed() {
        PrewarmedWindows.release()
    }

    /// The application id naming the persistent data folder. When `nil` (the default), the id
    /// of the default `GApplication` is used, else the program name (`g_get_prgname()`, else the
    /// executable's name). Set it before the first sign-in: a session keeps the value it started
    /// with, and each application id has its own persistent context for the life of the process.
    ///
    /// The process's value, except inside `WebviewProviderRegistry.withIsolatedRegistry`, where a
    /// task (a test) has its own.
    @MainActor public static var applicationID: String? {
        get { EmbeddedProviderSettings.applicationID.value }
        set { EmbeddedProviderSettings.applicationID.value = newValue }
    }

    /// Signs the person out of every site the library-owned window signed in to: deletes the
    /// persistent context's (that of ``applicationID``) cookies, storage and caches. Main thread; completes on the main thread.
    /// - Throws: the ``GLibError`` WebKit reported.
    @MainActor
    public static func clearPersistentData() async throws {
        try await SignInWebContexts.clearPersistentData(applicationID: applicationID)
    }

    /// ``clearPersistentData()`` with a completion handler, called once on the main thread with
    /// the error, if any.
    public static func clearPersistentData(completion: @escaping @MainActor @Sendable ((any Error)?) -> Void) {
        Task { @MainActor in
            do {
                try await clearPersistentData()
                completion(nil)
            } catch {
                completion(error)
            }
        }
    }
}

extension EmbeddedWebviewProvider {
    /// The library's device-code window, which moved to the toolkit modules (the window is not the
    /// embedded web view's): `DeviceCodeWindows.gtk3` in `WebviewHostGTK3`, `DeviceCodeWindows.gtk4`
    /// in `WebviewHostGTK4`.
    @available(*, deprecated, message: "Use DeviceCodeWindows.gtk3 (WebviewHostGTK3) or DeviceCodeWindows.gtk4 (WebviewHostGTK4).")
    @MainActor
    public static func presentDeviceCodeWindow(
        _ content: DeviceCodeWindowContent, parent: WindowHandle?, cancel: @escaping @MainActor () -> Void
    ) -> (@MainActor () -> Void) {
        #if WEBKITGTK_6
        DeviceCodeWindows.gtk4(content, parent, cancel)
        #else
        DeviceCodeWindows.gtk3(content, parent, cancel)
        #endif
    }
}
