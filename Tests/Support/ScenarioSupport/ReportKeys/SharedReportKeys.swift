// Report keys written by more than one scenario program, or by ScenarioHost itself.

extension ReportKey where Value == String {
    /// The caller's view's `uri` when the caller resumed (EmbeddedScenarios, SignInScenarios).
    public static var uriAtResume: Self { .init("uriAtResume") }
    public static var browserAuthorizationURL: Self { .init("browserAuthorizationURL") }
    public static var callbackURL: Self { .init("callbackURL") }
    public static var code: Self { .init("code") }
    /// Why the scenario gave no result: ScenarioRunner throws it.
    public static var error: Self { .init("error") }
    public static var errorCode: Self { .init("errorCode") }
    public static var errorMessage: Self { .init("errorMessage") }
    /// The type name of the GdkDisplay GTK chose (GdkX11Display, GdkWaylandDisplay): ScenarioHost adds it to every report.
    public static var gdkDisplay: Self { .init("gdkDisplay") }
    public static var outcome: Self { .init("outcome") }
    public static var state: Self { .init("state") }
}

extension ReportKey where Value == [String] {
    public static var events: Self { .init("events") }
    public static var failures: Self { .init("failures") }
    public static var notifications: Self { .init("notifications") }
}

extension ReportKey where Value == Bool {
    /// The caller's view was loading when the caller resumed (EmbeddedScenarios, SignInScenarios).
    public static var isLoadingAtResume: Self { .init("isLoadingAtResume") }
}
