import Foundation
public import WebviewHost

/// Signs in through the person's default web browser (RFC 8252), launched through GIO (the
/// OpenURI portal inside Flatpak or Snap). The redirect comes back to a loopback listener
/// (`http://127.0.0.1[:port]/path`, `http://[::1][:port]/path`) or, for a custom scheme
/// (`com.example.app:/oauth2redirect`), to the app registered for it with
/// ``CustomSchemeRegistration``, whose `GApplication` receives it through
/// ``CustomSchemeRedirect/connect(to:)`` (or, for apps that handle `open` themselves,
/// `WebAuthSession.handleOpenURL(_:)`).
///
/// The browser is handed a one-time first hop on the session's loopback listener, which sends it
/// on to the authorization URL; `didStartLoad` is reported when the browser arrives there, not
/// when GIO started a program. If it does not come within a few seconds, the app can offer to
/// open the browser again or to copy the link. A browser handler that exits with a failure
/// status before that ends the session with `browserLaunchFailed`.
///
/// A browser tab closing cannot be seen, so sessions time out after 10 minutes unless
/// ``WebviewParameters/timeout`` says otherwise.
public struct SystemBrowserProvider: WebviewProvider {
    public init() {}

    public var id: WebviewProviderID { .systemBrowser }
    public var displayName: String { "Default web browser" }
    public var priority: Int { 100 }
    public var kind: WebviewProviderKind { .systemBrowser }
    public var requiresDisplay: Bool { true }
    public var defaultTimeout: Duration? { .seconds(600) }

    /// Available in a graphical session with a default handler for `x-scheme-handler/https`,
    /// or in a sandbox, where the OpenURI portal opens the browser.
    public func availability(in environment: WebviewEnvironment) -> WebviewProviderAvailability {
        if environment.isSandboxed { return .available }
        guard environment.hasDisplay else {
            return .unavailable(reason: "there is no graphical session (DISPLAY and WAYLAND_DISPLAY are unset)")
        }
        guard BrowserLaunch.hasDefaultHandler(forScheme: "https") else {
            return .unavailable(reason: "no default application handles x-scheme-handler/https (no web browser is set up)")
        }
        return .available
    }

    /// In a sandbox: the portals that answered, and what the loopback redirect and custom schemes
    /// can do there.
    public func helpNotes(in environment: WebviewEnvironment) -> [String] {
        guard environment.isSandboxed else { return ["opens the desktop's default browser directly (no sandbox)"] }
        var notes = ["opens the browser through the OpenURI portal; portals: \(DesktopPortals.summary())"]
        switch environment.sandbox?.sharesNetwork {
        case false?: notes.append("loopback redirects: impossible, the sandbox does not share the network (add --share=network)")
        case true?: notes.append("loopback redirects: yes, the sandbox shares the network")
        case nil: notes.append("loopback redirects: if the sandbox shares the network")
        }
        notes.append("custom-scheme redirects: through the app's exported desktop file (its MimeType) and its GApplication")
        return notes
    }

    /// - Throws: `invalidParameters` for a `customWebview`, or a redirect URI the browser cannot
    ///   hand back (anything but a loopback `http` URI or a custom scheme that
    ///   ``CustomSchemeRegistration/validate(scheme:)`` accepts).
    @MainActor
    public func makeSession(for request: WebAuthRequest, reporter: WebAuthSessionReporter) throws
        -> any WebviewProviderSession
    {
        if request.parameters.customWebview != nil {
            throw WebAuthError(
                .invalidParameters,
                "The system browser cannot show sign-in in a customWebview; use the embedded provider for that.")
        }
        let scheme = request.redirectURI.url.scheme?.lowercased() ?? ""
        if scheme == "http" || scheme == "https" {
            guard request.redirectURI.isLoopback, scheme == "http" else {
                throw WebAuthError(
                    .invalidParameters,
                    "The system browser can return to the app only through http://127.0.0.1, http://[::1] "
                        + "or a custom URI scheme; \"\(request.redirectURI)\" cannot reach the app.",
                    url: request.redirectURI.url)
            }
        } else {
            try CustomSchemeRegistration.validate(scheme: request.redirectURI.url.scheme ?? "")
        }
        return SystemBrowserSession(request: request, reporter: reporter)
    }
}
