import CGLib
import CWebKitGTK4
import Foundation

/// The GTK 4 side of the few calls the shared children (`Tests/Benchmarks/WebviewHostBenchShared`,
/// linked here as `Shared`) cannot make the same way in GTK 3 and GTK 4.
@MainActor
enum Toolkit {
    /// Appended to the variant names this binary runs in the report (`own-window-gtk4`...).
    nonisolated static let suffix = "-gtk4"

    /// `gtk_init` (GTK 4 takes no arguments).
    static func initialize() {
        gtk_init()
    }

    /// A shown toplevel window of `Child.windowSize` holding `view` (`gtk_window_set_child`, `gtk_window_present`).
    static func showWindow(with view: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        let window = gtk_window_new()!
        gtk_window_set_default_size(wvh_window(window), Child.windowSize.width, Child.windowSize.height)
        gtk_window_set_child(wvh_window(window), wvh_widget(view))
        gtk_window_present(wvh_window(window))
        return UnsafeMutableRawPointer(window)
    }

    /// Destroys a toplevel window (`gtk_window_destroy`).
    static func destroyWindow(_ window: UnsafeMutableRawPointer) {
        gtk_window_destroy(wvh_window(window))
    }

    /// Runs the default main context for good (GTK 4 has no `gtk_main`).
    static func runMainLoop() -> Never {
        g_main_loop_run(g_main_loop_new(nil, 0))
        exit(1)
    }
}
