import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// Opens a URL in the person's default browser through GIO, with a launch context from the
/// parent window's display. Main thread only.
///
/// Outside a sandbox, when the default handler is a desktop entry, it is started with
/// `g_desktop_app_info_launch_uris_as_manager` without automatic reaping, so that its process can
/// be watched (`g_child_watch_add`): a handler that exits with a failure status or is killed is
/// reported through `onExit`. Inside Flatpak or Snap (and for handlers that are not desktop
/// entries) it uses `g_app_info_launch_default_for_uri_async`, where GIO hands the URL to the
/// OpenURI portal and no process can be watched.
@MainActor
final class BrowserLaunch {
    private var cancellable: UnsafeMutablePointer<GCancellable>?
    private var watches: [ChildWatchBox] = []

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

    /// Starts the browser on `url`. `completion` runs once on the main thread with the error
    /// when a launch through the portal fails (never after ``cancel()``). `onExit` runs on the
    /// main thread when a handler process this launch started and could watch ends, with its
    /// wait status (as `waitpid` gives it); it does not run after ``cancel()``.
    ///
    /// - Throws: `browserLaunchFailed` at once when no application handles the URL's scheme
    ///   (outside a sandbox, where the portal would choose one), or the handler cannot be started.
    func open(
        _ url: URL, parentWindow: WindowHandle?, sandboxed: Bool,
        completion: @escaping @MainActor (GLibError?) -> Void,
        onExit: @escaping @MainActor (_ waitStatus: Int32) -> Void = { _ in }
    ) throws(WebAuthError) {
        let scheme = url.scheme?.lowercased() ?? "https"
        cancel()
        if !sandboxed {
            guard let info = g_app_info_get_default_for_uri_scheme(scheme) else {
                throw WebAuthError(
                    .browserLaunchFailed,
                    "No web browser is set up to open \(scheme) links, so the sign-in page cannot be shown. "
                        + "Install a web browser or choose a default one in your desktop's settings, then try again.",
                    url: url)
            }
            defer { g_object_unref(UnsafeMutableRawPointer(info)) }
            if wvh_is_desktop_app_info(UnsafeMutableRawPointer(info)) != 0 {
                try launchWatched(wvh_desktop_app_info(UnsafeMutableRawPointer(info)), url, parentWindow, onExit)
                return
            }
        }
        let cancellable = g_cancellable_new()!
        self.cancellable = cancellable
        let context = Self.launchContext(parentWindow: parentWindow, forPortal: true)
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

    /// Starts a desktop entry's program on `url` and watches every process it started.
    private func launchWatched(
        _ info: OpaquePointer, _ url: URL, _ parentWindow: WindowHandle?,
        _ onExit: @escaping @MainActor (Int32) -> Void
    ) throws(WebAuthError) {
        let context = Self.launchContext(parentWindow: parentWindow, forPortal: false)
        defer { if let context { g_object_unref(context) } }
        let uris = g_list_append(nil, g_strdup(url.absoluteString))
        defer { g_list_free_full(uris, g_free) }
        let started = PidList()
        let pidCallback: @convention(c) (OpaquePointer?, GPid, gpointer?) -> Void = { _, pid, data in
            Unmanaged<PidList>.fromOpaque(data!).takeUnretainedValue().pids.append(pid)
        }
        // Without G_SPAWN_DO_NOT_REAP_CHILD GLib would start the handler through an intermediate
        // process, and its exit status could not be seen; the child watch below reaps it instead.
        let flags = GSpawnFlags(G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_DO_NOT_REAP_CHILD.rawValue)
        do {
            let pids = Unmanaged.passUnretained(started).toOpaque()
            _ = try withGError {
                g_desktop_app_info_launch_uris_as_manager(info, uris, context, flags, nil, nil, pidCallback, pids, $0)
            }
        } catch {
            throw WebAuthError(
                .browserLaunchFailed,
                "Your web browser could not be started to show the sign-in page (\(error.message)). "
                    + "Check that a default web browser is set in your desktop's settings, then try again.",
                url: url, underlyingError: error)
        }
        for pid in started.pids {
            let watch = ChildWatchBox(onExit)
            watches.append(watch)
            let callback: @convention(c) (GPid, gint, gpointer?) -> Void = { pid, status, data in
                let watch = Unmanaged<ChildWatchBox>.fromOpaque(data!).takeUnretainedValue()
                g_spawn_close_pid(pid)
                MainActor.assumeIsolated { watch.exited(status) }
            }
            // The watch stays until the process ends, even after cancel(), so that it is always
            // reaped (no zombie); only the report is dropped.
            g_child_watch_add_full(
                G_PRIORITY_DEFAULT, pid, callback, Unmanaged.passRetained(watch).toOpaque(),
                { data in
                    if let data { Unmanaged<ChildWatchBox>.fromOpaque(data).release() }
                })
        }
    }

    /// Stops waiting for a launch under way; its completion will not run.
    func cancel() {
        for watch in watches { watch.onExit = nil }
        watches.removeAll()
        guard let cancellable else { return }
        self.cancellable = nil
        g_cancellable_cancel(cancellable)
        g_object_unref(cancellable)
    }

    /// A launch context from the app's toolkit (``ToolkitIntegration``): on the parent window's
    /// display (or the default display), stamped now. For the portal it also names the parent
    /// window (`PARENT_WINDOW_ID`, which GIO's OpenURI call reads), so the portal's chooser is
    /// placed over the app. A plain context when no toolkit is installed.
    private static func launchContext(parentWindow: WindowHandle?, forPortal: Bool) -> UnsafeMutablePointer<GAppLaunchContext>? {
        guard let toolkit = ToolkitIntegration.current else { return g_app_launch_context_new() }
        guard let context = toolkit.makeLaunchContext(parentWindow?.pointer) else { return nil }
        if forPortal, let parentWindow, let identifier = toolkit.parentWindowIdentifier(parentWindow.pointer) {
            g_app_launch_context_setenv(context, "PARENT_WINDOW_ID", identifier)
        }
        return context
    }
}

/// Holds a launch's completion until GIO calls back (passed retained, taken back once).
private final class LaunchBox {
    let completion: @MainActor (GLibError?) -> Void
    init(_ completion: @escaping @MainActor (GLibError?) -> Void) { self.completion = completion }
}

/// The pids `g_desktop_app_info_launch_uris_as_manager` reports, during the call.
private final class PidList {
    var pids: [GPid] = []
}

/// Holds one child watch's report until the process ends (passed retained, released by GLib's
/// destroy notifier once the watch fired).
@MainActor
private final class ChildWatchBox {
    var onExit: (@MainActor (Int32) -> Void)?
    init(_ onExit: @escaping @MainActor (Int32) -> Void) { self.onExit = onExit }

    func exited(_ status: Int32) {
        let onExit = self.onExit
        self.onExit = nil
        onExit?(status)
    }
}
