#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// Sign-in windows made ahead of time (``EmbeddedWebviewProvider/prewarm(ephemeral:authorityHost:keepReady:)``):
/// per data store, one hidden window whose view has loaded `about:blank`, so its web process is
/// running, realized and sized but not mapped, with the authority's host name resolved. The next library-owned sign-in in that
/// context adopts it instead of building one; a window is only ever used by one session.
@MainActor
enum PrewarmedWindows {
    private struct Ready {
        let window: SignInWindow
        let host: String?
    }

    /// A data store: the ephemeral one, or an application id's persistent one.
    private struct Context: Hashable {
        let ephemeral: Bool
        /// The resolved application id; "" for the ephemeral store, which every id shares.
        let applicationID: String

        @MainActor init(ephemeral: Bool, applicationID: String?) {
            self.ephemeral = ephemeral
            self.applicationID = ephemeral ? "" : SignInWebContexts.resolvedApplicationID(applicationID)
        }
    }

    /// By context.
    private static var ready: [Context: Ready] = [:]
    /// The contexts the app asked to keep a window ready for, with the host to resolve and the
    /// window size.
    private static var keptReady: [Context: (host: String?, size: WindowSize)] = [:]

    /// Does nothing without a display. `applicationID`: the persistent store's
    /// (``EmbeddedWebviewProvider/applicationID`` of the calling task).
    static func prewarm(
        ephemeral: Bool, host: String?, keepReady: Bool, size: WindowSize = WebviewParameters().windowSize,
        applicationID: String? = EmbeddedWebviewProvider.applicationID
    ) {
        guard gdk_display_get_default() != nil else { return }
        let key = Context(ephemeral: ephemeral, applicationID: applicationID)
        if keepReady { keptReady[key] = (host, size) }
        if let existing = ready[key], existing.window.isAlive {
            if let host, existing.host != host { prefetch(host, ephemeral: ephemeral, applicationID: applicationID) }
            return
        }
        // As when a session makes its window: WebKit's processes started now write private files.
        let previousMask = umask(0o077)
        defer { umask(previousMask) }
        let context = SignInWebContexts.context(ephemeral: ephemeral, applicationID: applicationID)
        let window = SignInWindow(context: context)
        webkit_web_view_load_uri(window.webView, "about:blank")  // starts the web process
        window.prepareAhead(size: size)  // realized and sized, not shown
        ready[key] = Ready(window: window, host: host)
        if let host { prefetch(host, ephemeral: ephemeral, applicationID: applicationID) }
    }

    private static func prefetch(_ host: String, ephemeral: Bool, applicationID: String?) {
        WebKitDifferences.prefetchDNS(host, in: SignInWebContexts.context(ephemeral: ephemeral, applicationID: applicationID))
    }

    /// The window waiting for the next session in this context, handed over once; `nil` when none.
    static func take(ephemeral: Bool, applicationID: String?) -> SignInWindow? {
        guard let taken = ready.removeValue(forKey: Context(ephemeral: ephemeral, applicationID: applicationID)) else { return nil }
        // Still starting (its blank page not in yet): its load's events would reach the session,
        // so a new window serves better.
        guard taken.window.isAlive, webkit_web_view_is_loading(taken.window.webView) == 0 else {
            taken.window.destroy()
            return nil
        }
        return taken.window
    }

    /// Whether a window waits for the next session in this context.
    static func isReady(ephemeral: Bool, applicationID: String? = EmbeddedWebviewProvider.applicationID) -> Bool {
        ready[Context(ephemeral: ephemeral, applicationID: applicationID)]?.window.isAlive ?? false
    }

    /// A session in this context ended: if the app asked to keep one ready, a new window is made
    /// after the caller had its outcome (a later main-loop turn, never inside the teardown).
    static func sessionEnded(ephemeral: Bool, applicationID: String?) {
        let key = Context(ephemeral: ephemeral, applicationID: applicationID)
        guard let kept = keptReady[key], ready[key] == nil else { return }
        Task { @MainActor in
            try? await Task.sleep(for: .milliseconds(50))
            guard keptReady[key] != nil, ready[key] == nil else { return }
            prewarm(ephemeral: ephemeral, host: kept.host, keepReady: false, size: kept.size, applicationID: applicationID)
        }
    }

    /// Destroys the window waiting in this context (its store is retired); one is made again
    /// in the new store when the app asked to keep one ready (``sessionEnded(ephemeral:applicationID:)``).
    static func discard(ephemeral: Bool, applicationID: String?) {
        ready.removeValue(forKey: Context(ephemeral: ephemeral, applicationID: applicationID))?.window.destroy()
    }

    /// Destroys the waiting windows and stops keeping any ready.
    static func release() {
        keptReady.removeAll()
        for (_, waiting) in ready { waiting.window.destroy() }
        ready.removeAll()
    }
}
