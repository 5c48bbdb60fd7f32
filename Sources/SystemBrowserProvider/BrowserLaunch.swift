import CWebKitGTK
import Foundation
import GLibSupport
import WebviewHost

/// Opens a URL in the person's default browser through GIO
/// (`g_app_info_launch_default_for_uri_async`), with a launch context from the parent window's
/// display; inside Flatpak or Snap, GIO hands the URL to the OpenURI portal. Main thread only.
@MainActor
final class BrowserLaunch {
    private var cancellable: UnsafeMutablePointer<GCancellable>?

    init() {}

    isolated deinit {
        cancel()
    }

    /// Whether a default application handles `scheme` URIs here (`g_app_info_get_default_for_uri_scheme`).
    nonisolated static func hasDefaultHandler(forScheme scheme: String) -> Bool {
        guard let info = g_app_info_get_default_for_uri_scheme(scheme) else { return false }
        g_object_unref(UnsafeMutableRawPointer(info))
        return true
    }

    /// Starts the browser on `url`; `completion` runs once on the main thread with `nil` when the
    /// browser was started, or the error. It does not run after ``cancel()``.
    ///
    /// - Throws: `browserLaunchFailed` at once when no application handles the URL's scheme
    ///   (outside a sandbox, where the portal would choose one).
    func open(
        _ url: URL, parentWindow: WindowHandle?, sandboxed: Bool,
        completion: @escaping @MainActor (GLibError?) -> Void
    ) throws(WebAuthError) {
        let scheme = url.scheme?.lowercased() ?? "https"
        if !sandboxed, !Self.hasDefaultHandler(forScheme: scheme) {
            throw WebAuthError(
                .browserLaunchFailed,
                "No web browser is set up to open \(scheme) links, so the sign-in page cannot be shown. "
                    + "Install a web browser or choose a default one in your desktop's settings, then try again.",
                url: url)
        }
        cancel()
        let cancellable = g_cancellable_new()!
        self.cancellable = cancellable
        let context = Self.launchContext(parentWindow: parentWindow)
        let box = Unmanaged.passRetained(LaunchBox(completion)).toOpaque()
        g_app_info_launch_default_for_uri_async(
            url.absoluteString, context, cancellable,
            { _, result, data in
                let box = Unmanaged<LaunchBox>.fromOpaque(data!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let launched = g_app_info_launch_default_for_uri_finish(result, &error) != 0
                let failure = error.map { GLibError(consuming: $0) }
                MainActor.assumeIsolated {
                    if failure?.isIOError(G_IO_ERROR_CANCELLED) == true { return }
                    box.completion(launched ? nil : failure ?? GLibError(domain: "g-io-error-quark", code: 0, message: "unknown error"))
                }
            }, box)
        if let context { g_object_unref(context) }
    }

    /// Stops waiting for a launch under way; its completion will not run.
    func cancel() {
        guard let cancellable else { return }
        self.cancellable = nil
        g_cancellable_cancel(cancellable)
        g_object_unref(cancellable)
    }

    /// A launch context on the parent window's display (or the default display), stamped now.
    private static func launchContext(parentWindow: WindowHandle?) -> UnsafeMutablePointer<GAppLaunchContext>? {
        var display: OpaquePointer? = nil
        if let parentWindow, wvh_is_window(parentWindow.pointer) != 0 {
            display = gtk_widget_get_display(wvh_widget(parentWindow.pointer))
        }
        guard let display = display ?? gdk_display_get_default(),
            let context = gdk_display_get_app_launch_context(display)
        else { return nil }
        gdk_app_launch_context_set_timestamp(context, wvh_gdk_current_time())
        return wvh_app_launch_context(UnsafeMutableRawPointer(context))
    }
}

/// Holds a launch's completion until GIO calls back (passed retained, taken back once).
private final class LaunchBox {
    let completion: @MainActor (GLibError?) -> Void
    init(_ completion: @escaping @MainActor (GLibError?) -> Void) { self.completion = completion }
}
