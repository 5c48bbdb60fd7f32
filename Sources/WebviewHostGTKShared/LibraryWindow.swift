#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import Foundation
import WebviewHost

/// What the library's own windows share, whichever module shows them: the sign-in window and its
/// questions (the embedded provider) and the device-code window (this module). What differs
/// between GTK 3 and GTK 4 is in each toolkit module's `LibraryWindow+GTK3.swift` or
/// `LibraryWindow+GTK4.swift`.
@MainActor
package enum LibraryWindow {
    /// A `GtkWindow *`.
    package typealias Window = UnsafeMutablePointer<GtkWindow>
    /// A `GtkWidget *`.
    package typealias Widget = UnsafeMutablePointer<GtkWidget>

    /// "_Cancel", in the header bar of every window the library shows.
    package static var cancelLabel: String { ShownText.tr("button", "_Cancel") }
}

/// A button's name for a screen reader: its label without the mnemonic's underscore. GTK 4.8
/// gives a button labelled "_Cancel" the accessible name "_Cancel Cancel" (`AccessibilityTests`).
@MainActor
package func nameForScreenReaders(_ button: LibraryWindow.Widget, label: String) {
    wvh_set_button_accessible_name(button, label.replacingOccurrences(of: "_", with: ""))
}

/// The library's windows read in the direction of the language their text is in.
@MainActor
package enum ShownDirection {
    /// Mirrors `widget` and everything in it when the library's text reads right to left and
    /// GTK's default direction does not (the app chose Arabic, say, in a locale GTK has no
    /// catalog for), and the reverse. Nothing changes when they agree.
    package static func apply(to widget: LibraryWindow.Widget) {
        let direction = WebviewLocalization.isRightToLeft(ShownText.language()) ? GTK_TEXT_DIR_RTL : GTK_TEXT_DIR_LTR
        guard gtk_widget_get_default_direction() != direction else { return }
        wvh_set_direction_recursive(widget, direction)
    }
}
