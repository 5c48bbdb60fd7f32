/// The scenarios `GLibScenarios` runs, by the name on its command line.
public enum GLibScenario: String, ScenarioName {
    case bridgeResumes = "bridge-resumes"
    case bridgeIdleCpu = "bridge-idle-cpu"
    case builtIns = "built-ins"
    case signals
    /// A scenario that never ends, its main loop running (the watchdog's test).
    case neverFinishes = "never-finishes"
    /// A scenario that blocks its main loop for good (the test runner's kill).
    case blocksMainLoop = "blocks-main-loop"

    public static var program: String? { "GLibScenarios" }
}
