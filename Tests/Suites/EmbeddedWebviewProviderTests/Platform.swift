import Foundation
import ScenarioSupport
import Testing

/// The toolkit a scenario runs with: the scenario program built for its embedded provider. Both
/// programs compile the same scenarios (Tests/Scenarios/EmbeddedScenariosShared).
enum Toolkit: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// GTK 3 and WebKitGTK 4.1: EmbeddedWebviewProvider.
    case gtk3
    /// GTK 4 and WebKitGTK 6.0: EmbeddedWebviewProviderGTK4.
    case gtk4

    var program: String {
        switch self {
        case .gtk3: "EmbeddedScenariosGTK3"
        case .gtk4: "EmbeddedScenariosGTK4"
        }
    }

    var testDescription: String { self == .gtk3 ? "GTK 3" : "GTK 4" }
}

/// Where a scenario runs: a toolkit on a display server (the tests' Xvfb, or a private headless
/// Weston). Every scenario-based test takes one as its first argument.
struct Platform: Sendable, CustomTestStringConvertible {
    let toolkit: Toolkit
    let display: DisplayServer

    var testDescription: String { "\(toolkit.testDescription) on \(display == .x11 ? "X11" : "Wayland")" }

    /// Where a scenario that types or clicks (xdotool: real events through XTest) runs: on X11 an
    /// X server of its own, since key events go to whichever window of a display has the focus and
    /// a test running beside it may show one; on Wayland its own compositor, which takes them
    /// through an X server of its own (headless Weston has no input devices).
    var keyboardDisplay: DisplayServer { display == .x11 ? .privateX11 : .waylandWithInput }

    /// The `GdkDisplay` type a scenario on this platform must report (GTK really ran there).
    var gdkDisplayType: String { display == .x11 ? "GdkX11Display" : "GdkWaylandDisplay" }

    /// Both toolkits on X11 and on Wayland: every embedded scenario runs on both display servers.
    /// `EMBEDDED_SCENARIO_DISPLAYS=x11` in the environment keeps the rest to X11 for a quicker
    /// local run (the representative set in ``everywhere`` still runs on Wayland).
    static let standard: [Platform] = ProcessInfo.processInfo.environment["EMBEDDED_SCENARIO_DISPLAYS"] == "x11" ? x11 : everywhere

    /// Both toolkits on X11 and on Wayland: the representative tests run here always.
    static let everywhere: [Platform] = x11 + wayland

    static let x11 = Toolkit.allCases.map { Platform(toolkit: $0, display: .x11) }
    static let wayland = Toolkit.allCases.map { Platform(toolkit: $0, display: .wayland) }
}

/// Every pair of an element of `first` and one of `second`, in order (swift-testing takes at most
/// two argument collections; the platform is the first).
func product<A: Sendable, B: Sendable>(_ first: [A], _ second: [B]) -> [(A, B)] {
    first.flatMap { a in second.map { (a, $0) } }
}
