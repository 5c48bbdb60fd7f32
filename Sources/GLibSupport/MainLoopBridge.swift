import CGLib
import Dispatch

/// Keeps Swift's main actor and `DispatchQueue.main` running while GTK's main loop runs.
///
/// Swift runs main-actor jobs on the Dispatch main queue, which nothing drains while
/// `gtk_main()` runs: without the bridge an `await` in a GTK app never resumes. The bridge adds
/// a GLib source on the main queue's wake-up eventfd to the default main context; when it
/// fires it reads the eventfd, then drains the queue, as CoreFoundation's run loop does.
///
/// Call ``install()`` once on the main thread, after `gtk_init` and before `gtk_main()`.
public enum MainLoopBridge {
    @MainActor private static var sourceID: guint = 0

    /// Whether the bridge is installed.
    @MainActor public static var isInstalled: Bool { sourceID != 0 }

    /// Installs the bridge on GLib's default main context. Calling it again does nothing.
    @MainActor
    public static func install() {
        guard sourceID == 0 else { return }
        let fd = _dispatch_get_main_queue_handle_4CF()
        precondition(fd >= 0, "libdispatch has no main-queue handle")
        sourceID = g_unix_fd_add_full(
            G_PRIORITY_DEFAULT, fd, G_IO_IN,
            { fd, _, _ in
                // Clear the eventfd first, or the source fires again at once (a hot loop).
                var count: eventfd_t = 0
                _ = eventfd_read(fd, &count)
                _dispatch_main_queue_callback_4CF(nil)
                return gboolean(1)  // G_SOURCE_CONTINUE
            }, nil, nil)
        // Work queued before the source existed may have signalled already; drain it once.
        g_idle_add_full(G_PRIORITY_DEFAULT, { _ in
            _dispatch_main_queue_callback_4CF(nil)
            return gboolean(0)  // G_SOURCE_REMOVE
        }, nil, nil)
    }

    /// Removes the bridge (tests; an app keeps it for its lifetime).
    @MainActor
    public static func uninstall() {
        guard sourceID != 0 else { return }
        g_source_remove(sourceID)
        sourceID = 0
    }
}
