import GLibSupport
import WebviewHost

extension ToolkitWindow {
    /// The caller's window (a `GtkWindow *`), for the toolkit's hooks.
    init(_ handle: WindowHandle) { self.init(rawValue: handle.address) }
}
