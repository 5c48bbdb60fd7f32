import CGLib
import CWebKitGTK3
import Foundation

/// The GTK 3 side of the few calls the shared children (`Tests/Benchmarks/WebviewHostBenchShared`,
/// linked here as `Shared`) cannot make the same way in GTK 3 and GTK 4.
@MainActor
enum Toolkit {
    /// Appended to the variant names this binary runs in the report (`own-window`, `caller-view`...).
    nonisolated static let suffix = ""

    /// `gtk_init`.
    static func initialize() {
        gtk_init(nil, nil)
    }

    /// A shown toplevel window of `Child.windowSize` holding `view`.
    static func showWindow(with view: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        let window = gtk_window_new(GTK_WINDOW_TOPLEVEL)!
        gtk_window_set_default_size(wvh_window(window), Child.windowSize.width, Child.windowSize.height)
        gtk_container_add(wvh_container(window), wvh_widget(view))
        gtk_widget_show_all(window)
        return UnsafeMutableRawPointer(window)
    }

    /// Destroys a toplevel window (`gtk_widget_destroy`).
    static func destroyWindow(_ window: UnsafeMutableRawPointer) {
        gtk_widget_destroy(wvh_widget(window))
    }

    /// Runs the main loop for good (`gtk_main`).
    static func runMainLoop() -> Never {
        gtk_main()
        exit(1)
    }
}
