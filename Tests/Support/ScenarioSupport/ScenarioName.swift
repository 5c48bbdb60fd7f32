/// The scenarios one scenario program runs: an enum whose raw values are the names on the
/// program's command line. Declared in ScenarioSupport (one file each in `ScenarioNames/`): the
/// program switches over it exhaustively (``ScenarioHost/main(_:initializeToolkit:scenarios:)``,
/// or its own `switch` in TokenCacheScenarios) and the tests launch by case
/// (``ScenarioRunner/run(_:in:arguments:environment:timeout:launcher:display:)``), so a renamed
/// or removed scenario fails to compile on both sides.
public protocol ScenarioName: RawRepresentable<String>, CaseIterable, Sendable {
    /// The executable that runs these scenarios, built beside the test bundle; `nil` when more
    /// than one does (the embedded ones, one per toolkit), and the test names it.
    static var program: String? { get }
}
