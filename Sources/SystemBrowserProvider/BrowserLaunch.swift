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
    private var cancellable: GObjectRef<UnsafeMutablePointer<GCancellable>>?
    /// The report for the processes the current launch watches; `nil` after ``cancel()``.
    private var onExit: (@MainActor (Int32) -> Void)?
    /// Which launch the child watches report for: ``cancel()`` moves on, so earlier watches stay silent.
    private var generation = 0
    /// The app's toolkit, as the task that made the session saw it (``ToolkitIntegration/current``):
    /// the portal's answers and the launch's callbacks run in no task.
    private let toolkit: ToolkitIntegration?

    /// A launch through `toolkit` (`nil`: a plain `GAppLaunchContext`).
    init(toolkit: ToolkitIntegration?) {
        self.toolkit = toolkit
    }

    isolated deinit {
        cancel()
    }

    /// Whether a default application handles `scheme` URIs here (`g_app_info_get_default_for_uri_scheme`).
    nonisolated static func hasDefaultHandler(forScheme scheme: String) -> Bool {
        g_app_info_get_default_for_uri_scheme(scheme).map(GObjectRef.init(adopting:)) != nil
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
            guard let info = g_app_info_get_default_for_uri_scheme(scheme).map(GObjectRef.init(adopting:)) else {
                throw WebAuthError(
                    .browserLaunchFailed,
                    "No web browser is set up to open \(scheme) links, so the sign-in page cannot be shown. "
                        + "Install a web browser or choose a default one in your desktop's settings, then try again.",
                    url: url)
            }
            if wvh_is_desktop_app_info(info.pointer.objectAddress) != 0 {
                try launchWatched(wvh_desktop_app_info(info.pointer.objectAddress), url, parentWindow, onExit)
                return
            }
        }
        let cancellable = GObjectRef(adopting: g_cancellable_new()!)
        self.cancellable = cancellable
        let context = Self.launchContext(toolkit: toolkit, parentWindow: parentWindow, forPortal: true)
        // The portal places its dialogs over the app's window when it knows it: on X11 by its id
        // (set above), on Wayland by a handle the compositor exports (xdg-foreign), which takes a
        // round trip: the launch waits for it, a second at most.
        guard sandboxed, let toolkit, let window = parentWindow.map({ ToolkitWindow($0) }), let context,
            toolkit.parentIdentifier(of: window) == nil
        else {
            Self.launchThroughPortal(url, context: context, cancellable: cancellable, completion: completion)
            return
        }
        var launched = false
        let launch: @MainActor (String?) -> Void = { identifier in
            guard !launched else { return }
            launched = true
            guard g_cancellable_is_cancelled(cancellable.pointer) == 0 else { return }
            if let identifier { g_app_launch_context_setenv(context.pointer, "PARENT_WINDOW_ID", identifier) }
            Self.launchThroughPortal(url, context: context, cancellable: cancellable) { error in
                toolkit.unexportParent(window)
                completion(error)
            }
        }
        toolkit.exportParent(window) { identifier in launch(identifier) }
        if !launched {
            Task { @MainActor in
                try? await Task.sleep(for: .seconds(1))
                launch(nil)
            }
        }
    }

    /// `g_app_info_launch_default_for_uri_async` (the OpenURI portal in a sandbox); `completion`
    /// with the error, unless the launch was cancelled.
    private static func launchThroughPortal(
        _ url: URL, context: GObjectRef<UnsafeMutablePointer<GAppLaunchContext>>?,
        cancellable: GObjectRef<UnsafeMutablePointer<GCancellable>>, completion: @escaping @MainActor (GLibError?) -> Void
    ) {
        g_app_info_launch_default_for_uri_async(
            url.absoluteString, context?.pointer, cancellable.pointer, AsyncReadyCallback.function,
            AsyncReadyCallback.userData { _, result in
                var error: UnsafeMutablePointer<GError>?
                let launched = g_app_info_launch_default_for_uri_finish(result, &error) != 0
                let failure = error.map { GLibError(consuming: $0) }
                if failure?.isIOError(G_IO_ERROR_CANCELLED) == true { return }
                completion(launched ? nil : failure ?? GLibError(domain: "g-io-error-quark", code: 0, message: "unknown error"))
            })
    }

    /// Starts a desktop entry's program on `url` and watches every process it started.
    private func launchWatched(
        _ info: OpaquePointer, _ url: URL, _ parentWindow: WindowHandle?,
        _ onExit: @escaping @MainActor (Int32) -> Void
    ) throws(WebAuthError) {
        let context = Self.launchContext(toolkit: toolkit, parentWindow: parentWindow, forPortal: false)
        let uris = g_list_append(nil, g_strdup(url.absoluteString))
        defer { g_list_free_full(uris, g_free) }
        // The pids GIO reports during the call, through a pointer to this array.
        var started: [GPid] = []
        let pidCallback: @convention(c) (OpaquePointer?, GPid, gpointer?) -> Void = { _, pid, data in
            data!.assumingMemoryBound(to: [GPid].self).pointee.append(pid)
        }
        // Without G_SPAWN_DO_NOT_REAP_CHILD GLib would start the handler through an intermediate
        // process, and its exit status could not be seen; the child watch below reaps it instead.
        let flags = GSpawnFlags(G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_DO_NOT_REAP_CHILD.rawValue)
        do {
            _ = try withUnsafeMutablePointer(to: &started) { pids throws(GLibError) in
                try withGError {
                    g_desktop_app_info_launch_uris_as_manager(info, uris, context?.pointer, flags, nil, nil, pidCallback, pids, $0)
                }
            }
        } catch {
            throw WebAuthError(
                .browserLaunchFailed,
                "Your web browser could not be started to show the sign-in page (\(error.message)). "
                    + "Check that a default web browser is set in your desktop's settings, then try again.",
                url: url, underlyingError: error)
        }
        self.onExit = onExit
        let generation = self.generation
        for pid in started {
            // The watch stays until the process ends, even after cancel(), so that it is always
            // reaped (no zombie); only the report is dropped.
            ChildWatchCallback.add(pid) { [weak self] pid, status in
                g_spawn_close_pid(pid)
                guard let self, self.generation == generation else { return }
                self.onExit?(status)
            }
        }
    }

    /// Stops waiting for a launch under way; its completion will not run.
    func cancel() {
        onExit = nil
        generation += 1
        guard let cancellable else { return }
        self.cancellable = nil
        g_cancellable_cancel(cancellable.pointer)
    }

    /// A launch context from the app's toolkit (``ToolkitIntegration``): on the parent window's
    /// display (or the default display), stamped now. For the portal it also names the parent
    /// window (`PARENT_WINDOW_ID`, which GIO's OpenURI call reads), so the portal's chooser is
    /// placed over the app. A plain context when no toolkit is installed.
    private static func launchContext(
        toolkit: ToolkitIntegration?, parentWindow: WindowHandle?, forPortal: Bool
    ) -> GObjectRef<UnsafeMutablePointer<GAppLaunchContext>>? {
        guard let toolkit else { return GObjectRef(adopting: g_app_launch_context_new()) }
        guard let context = toolkit.launchContext(on: parentWindow.map { ToolkitWindow($0) }) else { return nil }
        if forPortal, let parentWindow, let identifier = toolkit.parentIdentifier(of: ToolkitWindow(parentWindow)) {
            g_app_launch_context_setenv(context.pointer, "PARENT_WINDOW_ID", identifier)
        }
        return context
    }
}
