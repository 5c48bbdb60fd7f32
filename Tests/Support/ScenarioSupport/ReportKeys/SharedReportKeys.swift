// Report keys written by more than one scenario program, or by ScenarioHost itself.

extension ReportKey where Value == String {
    public static var browserAuthorizationURL: Self { .init("browserAuthorizationURL") }
    /// Why the scenario gave no result: ScenarioRunner throws it.
    public static var error: Self { .init("error") }
    /// The type name of the GdkDisplay GTK chose (GdkX11Display, GdkWaylandDisplay): ScenarioHost adds it to every report.
    public static var gdkDisplay: Self { .init("gdkDisplay") }
    public static var outcome: Self { .init("outcome") }
}

extension ReportKey where Value == [String] {
    public static var notifications: Self { .init("notifications") }
}
