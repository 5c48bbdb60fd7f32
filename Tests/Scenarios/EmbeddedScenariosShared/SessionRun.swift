#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import Foundation
import GLibSupport
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
    ///
    /// - Throws: ``SessionDidNotEnd`` when the awaiting task has not resumed within `deadline`
    ///   (60 s, scaled): a hang, reported with what the session and its view were doing then,
    ///   rather than as the scenario watchdog's bare "no result in time".
    func outcome(
        within deadline: Duration = Patience.scaled(.seconds(60)), settle: Duration = .milliseconds(800)
    ) async throws(SessionDidNotEnd) -> Result<WebAuthResponse, WebAuthError> {
        guard await ScenarioHost.wait(upTo: deadline, until: { result != nil }), let result else {
            throw SessionDidNotEnd(deadline: deadline, recorder: recorder)
        }
        await ScenarioHost.idle(settle)
        return result
    }

    /// Cancels the Swift task that awaits the session (as leaving a view with `.task` does).
    func cancelTask() { task?.cancel() }

    /// The view the session reported in its notifications.
    var webview: UnsafeMutableRawPointer? { recorder.webview?.address }

    /// Facts about the outcome and the notifications, for a ``ScenarioReport``.
    func facts(_ result: Result<WebAuthResponse, WebAuthError>, prefix: String = "") -> ScenarioReport {
        var facts = SessionRunFacts.make(result, recorder: recorder)
        facts[.resumeCount] = resumeCount
        return facts.prefixed(by: prefix)
    }
}

/// A session whose caller was not resumed in time, with what it and its view were doing.
struct SessionDidNotEnd: Error, CustomStringConvertible {
    let description: String

    @MainActor
    init(deadline: Duration, recorder: NotificationRecorder) {
        let notifications = recorder.texts.isEmpty ? "none" : recorder.texts.joined(separator: "; ")
        var text = "the session did not end within \(deadline); its notifications: \(notifications)"
        if recorder.terminalCount > 0 { text += " (a terminal one was posted, yet the caller was not resumed)" }
        let failures = ViewLoadFailures.all
        text += "; the views' failed loads: \(failures.isEmpty ? "none" : failures.joined(separator: "; "))"
        if let pointer = recorder.webview?.address {
            let view = wvh_web_view(pointer)
            text += "; the view: URI \"\(Probes.uri(of: pointer))\", loading \(webkit_web_view_is_loading(view) != 0), "
                + "progress \(webkit_web_view_get_estimated_load_progress(view))"
        } else {
            text += "; no notification named a view"
        }
        description = text
    }
}

/// Facts about a session's outcome and notifications, for a ``ScenarioReport``.
@MainActor
enum SessionRunFacts {
    static func make(_ result: Result<WebAuthResponse, WebAuthError>, recorder: NotificationRecorder) -> ScenarioReport {
        var facts = ScenarioReport()
            facts[.events] = recorder.texts
            facts[.viewLoadFailures] = ViewLoadFailures.all
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
