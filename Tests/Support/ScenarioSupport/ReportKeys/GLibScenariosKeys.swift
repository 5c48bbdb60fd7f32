// The report keys only GLibScenarios writes (the names in its JSON report).

extension ReportKey where Value == String {
    public static var authenticationSession: Self { .init("authenticationSession") }
    public static var `default`: Self { .init("default") }
    public static var help: Self { .init("help") }
    public static var noDisplay: Self { .init("noDisplay") }
}

extension ReportKey where Value == Int {
    public static var afterDisconnect: Self { .init("afterDisconnect") }
    public static var awaitedValue: Self { .init("awaitedValue") }
    public static var baseline: Self { .init("baseline") }
    public static var connected: Self { .init("connected") }
    public static var countAfter: Self { .init("countAfter") }
}

extension ReportKey where Value == Double {
    public static var cpuSeconds: Self { .init("cpuSeconds") }
    public static var wallSeconds: Self { .init("wallSeconds") }
}

extension ReportKey where Value == Bool {
    public static var closureAliveWhileConnected: Self { .init("closureAliveWhileConnected") }
    public static var closureReleasedAfterDisconnect: Self { .init("closureReleasedAfterDisconnect") }
    public static var dispatchOnMainThread: Self { .init("dispatchOnMainThread") }
    public static var glibTimeoutFired: Self { .init("glibTimeoutFired") }
    public static var insideGTKMain: Self { .init("insideGTKMain") }
    public static var taskOnMainThread: Self { .init("taskOnMainThread") }
}

extension ReportKey where Value == [String] {
    public static var notified: Self { .init("notified") }
    public static var order: Self { .init("order") }
    public static var registered: Self { .init("registered") }
}
