/// The scenarios `GLibScenarios` runs, by the name on its command line.
public enum GLibScenario: String, ScenarioName {
    case bridgeResumes = "bridge-resumes"
    case bridgeIdleCpu = "bridge-idle-cpu"
    case builtIns = "built-ins"
    case signals

    public static var program: String? { "GLibScenarios" }
}
