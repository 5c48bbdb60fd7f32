/// Where a scenario program shows its windows (``ScenarioRunner/run(_:in:arguments:environment:timeout:launcher:display:)``).
public enum DisplayServer: Sendable {
    /// The X display the tests run with (`DISPLAY`, as `xvfb-run -a` sets it).
    case x11
    /// A private headless Weston started for the one run (``WaylandCompositor``), with
    /// `GDK_BACKEND=wayland` and no `DISPLAY`: GTK cannot fall back to X.
    case wayland
    /// A private Xvfb started for the one run (``PrivateXServer``), with `GDK_BACKEND=x11`: the
    /// run's windows are the only ones on its screen, so real input events (`xdotool`) reach
    /// them and never a window of a test running in parallel.
    case privateX11
    /// A private Weston whose output is a window of a private Xvfb (``WaylandCompositor``'s
    /// `input`): GTK on Wayland as with `.wayland`, and real input events sent to that X server
    /// (`xdotool` with `DISPLAY` set to `SCENARIO_INPUT_DISPLAY`) reach the focused Wayland window
    /// through Weston's seat.
    case waylandWithInput
}
