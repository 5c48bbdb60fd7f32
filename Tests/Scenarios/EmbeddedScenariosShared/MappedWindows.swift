import CGLib
#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import GLibSupport

/// The title of every window mapped while it watches, however briefly it was up (an emission hook
/// on `GtkWidget::map`, which runs before any handler): a question flashed and taken away within
/// one frame is in the list too, where polling the toplevels would miss it.
@MainActor
final class MappedWindows {
    private(set) var titles: [String] = []
    private var hook: (signal: guint, id: gulong)?
    private var box: Unmanaged<Box>?

    private final class Box {
        weak var watch: MappedWindows?
        init(_ watch: MappedWindows) { self.watch = watch }
    }

    init() {
        let box = Unmanaged.passRetained(Box(self))
        self.box = box
        g_type_class_ref(gtk_window_get_type())  // a class's signals exist once it does (GTK 4: not before the first window)
        let signal = g_signal_lookup("map", gtk_widget_get_type())
        let id = g_signal_add_emission_hook(signal, 0, { _, count, values, data in
            guard let values, let data, count >= 1, let instance = g_value_get_object(values),
                g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(instance)), gtk_window_get_type()) != 0
            else { return 1 }
            let title = gtk_window_get_title(wvh_window(instance)).map { String(cString: $0) } ?? ""
            MainActor.assumeIsolated { Unmanaged<Box>.fromOpaque(data).takeUnretainedValue().watch?.titles.append(title) }
            return 1  // stay
        }, box.toOpaque(), nil)
        hook = (signal, id)
    }

    /// Removes the hook (once).
    func stop() {
        if let hook { g_signal_remove_emission_hook(hook.signal, hook.id) }
        hook = nil
        box?.release()
        box = nil
    }
}
