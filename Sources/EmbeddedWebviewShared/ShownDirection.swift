#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import Foundation
import WebviewHost

/// A button's name for a screen reader: its label without the mnemonic's underscore. GTK 4.8
/// gives a button labelled "_Cancel" the accessible name "_Cancel Cancel" (`AccessibilityTests`).
@MainActor
func nameForScreenReaders(_ button: WebKitDifferences.Widget, label: String) {
    wvh_set_button_accessible_name(button, label.replacingOccurrences(of: "_", with: ""))
}

/// The library's windows read in the direction of the language their text is in.
@MainActor
enum ShownDirection {
    /// Mirrors `widget` and everything in it when the library's text reads right to left and
    /// GTK's default direction does not (the app chose Arabic, say, in a locale GTK has no
    /// catalog for), and the reverse. Nothing changes when they agree.
    static func apply(to widget: WebKitDifferences.Widget) {
        let direction = WebviewLocalization.isRightToLeft(ShownText.language()) ? GTK_TEXT_DIR_RTL : GTK_TEXT_DIR_LTR
        guard gtk_widget_get_default_direction() != direction else { return }
        wvh_set_direction_recursive(widget, direction)
    }
}
