import ScenarioSupport

extension NotificationRecorder {
    /// The report of a scenario whose page never finished loading: what the session did instead
    /// (its notifications so far), so that a failure on a slow machine can be told from a bug.
    func pageNeverLoaded(_ page: String = "the authorization page") -> ScenarioReport {
        ScenarioReport(
            error: "\(page) never finished loading within \(Patience.event); the session's notifications: "
                + (texts.isEmpty ? "none" : texts.joined(separator: "; ")))
    }
}
