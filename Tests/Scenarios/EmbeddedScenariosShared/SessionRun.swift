import Foundation
import ScenarioSupport
import WebviewHost

/// One real `WebAuthSession` started from a scenario, with its notifications recorded.
@MainActor
final class SessionRun {
    let session: WebAuthSession
    let recorder: NotificationRecorder
    private var task: Task<Result<WebAuthResponse, WebAuthError>, Never>?
    private(set) var resumeCount = 0
    /// The outcome once the awaiting task resumed; `nil` while the session runs.
    private(set) var result: Result<WebAuthResponse, WebAuthError>?

    init(redirectURI: String, parameters: WebviewParameters, authorizationURL: String, expectedState: String? = "xyz") {
        session = WebAuthSession(redirectURI: URL(string: redirectURI)!, parameters: parameters)
        recorder = NotificationRecorder(session)
        let session = session
        task = Task { @MainActor [weak self] in
            let result: Result<WebAuthResponse, WebAuthError>
            do throws(WebAuthError) {
                result = .success(
                    try await session.authenticate(expectedState: expectedState) { _ in URL(string: authorizationURL)! })
            } catch {
                result = .failure(error)
            }
            self?.resumeCount += 1
            self?.result = result
            return result
        }
    }

    /// The outcome, then a pause so late or duplicate outcomes and the dismissal would show.
    func outcome(settle: Duration = .milliseconds(800)) async -> Result<WebAuthResponse, WebAuthError> {
        let result = await task!.value
        await ScenarioHost.idle(settle)
        return result
    }

    /// Cancels the Swift task that awaits the session (as leaving a view with `.task` does).
    func cancelTask() { task?.cancel() }

    /// The view the session reported in its notifications.
    var webview: UnsafeMutableRawPointer? { recorder.webview?.pointer }

    /// Facts about the outcome and the notifications, for a ``ScenarioReport``.
    func facts(_ result: Result<WebAuthResponse, WebAuthError>, prefix: String = "") -> ScenarioReport {
        var facts = SessionRunFacts.make(result, recorder: recorder)
        facts[.resumeCount] = resumeCount
        return facts.prefixed(by: prefix)
    }
}

/// Facts about a session's outcome and notifications, for a ``ScenarioReport``.
@MainActor
enum SessionRunFacts {
    static func make(_ result: Result<WebAuthResponse, WebAuthError>, recorder: NotificationRecorder) -> ScenarioReport {
        var facts = ScenarioReport()
            facts[.events] = recorder.texts
            facts[.eventNames] = recorder.names
            facts[.allOnMainThread] = recorder.allOnMainThread
            facts[.terminalCount] = recorder.terminalCount
            facts[.failCount] = recorder.failCount
        switch result {
        case .success(let response):
            facts[.outcome] = "success"
            facts[.callbackURL] = response.callbackURL.absoluteString
            facts[.code] = response.code ?? ""
            facts[.state] = response.state ?? ""
        case .failure(let error):
            facts[.outcome] = error.code.name
            facts[.errorMessage] = error.message
        }
        return facts
    }
}
