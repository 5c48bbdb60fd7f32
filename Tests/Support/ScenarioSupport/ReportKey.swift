/// The name of one value in a ``ScenarioReport``, with the type of that value: the scenario
/// program writes through it and the test reads through it, so both agree on name and type.
///
/// Keys are declared once, as static members in constrained extensions
/// (`extension ReportKey where Value == String { static var outcome: Self }`), in `ReportKeys/`:
/// one file per scenario program, and `SharedReportKeys.swift` for those several programs write.
/// The name is what travels in the JSON line.
public struct ReportKey<Value: ReportValue>: Sendable, Hashable {
    public let name: String

    public init(_ name: String) { self.name = name }

    /// The same key under `prefix + name`: for a scenario that reports several runs side by side
    /// (`"first." + "outcome"`).
    public func prefixed(by prefix: String) -> Self { Self(prefix + name) }

    /// The same key under `name + suffix`: for a value reported once per round or moment
    /// (`"readyDuring" + "2"`).
    public func suffixed(by suffix: String) -> Self { Self(name + suffix) }
}
