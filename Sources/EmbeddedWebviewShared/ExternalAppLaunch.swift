#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport

/// Starts another app for a URI the sign-in view does not load (`mailto:`, say), once the
/// session decided it may: the desktop's default handler for the scheme
/// (`g_app_info_launch_default_for_uri_async`), with the app's toolkit's launch context
/// (``ToolkitIntegration``: on the window's display, stamped with the current event time, as the
/// browser is launched). Main thread.
@MainActor
enum ExternalAppLaunch {
    /// Starts the handler for `url` near `window` (a `GtkWindow *`; `nil` for the default
    /// display), with `toolkit`'s launch context (the session's: see `SessionSettings`). Nothing
    /// waits for it; a failure is logged (GLib's default handler, domain WebviewHost).
    static func open(_ url: URL, window: WebKitDifferences.Window?, toolkit: ToolkitIntegration) {
        let launchContext = toolkit.launchContext(on: window.map { ToolkitWindow($0) })
        g_app_info_launch_default_for_uri_async(
            url.absoluteString, launchContext?.pointer, nil, AsyncReadyCallback.function,
            AsyncReadyCallback.userData { _, result in
                var error: UnsafeMutablePointer<GError>?
                if g_app_info_launch_default_for_uri_finish(result, &error) == 0, let error {
                    let message = "Could not open a link from the sign-in page: " + String(cString: error.pointee.message)
                    g_error_free(error)
                    g_log_default_handler("WebviewHost", G_LOG_LEVEL_WARNING, message, nil)
                }
            })
    }
}
