public import Foundation
import Logging
import Synchronization

extension WebAuthSession {
    /// Runs a sign-in the person finishes on another device (the device authorization grant,
    /// RFC 8628) as this session, so it keeps the contract of every other sign-in: the
    /// one-session slot (a second interactive session fails with `sessionAlreadyInProgress`, and
    /// this one fails so while another runs), the notifications, the timeout, and one outcome.
    ///
    /// `operation` gets the code from the provider, calls
    /// ``AnotherDeviceSignIn/codeShown(at:lifetime:expiry:whenEnded:)`` once the person sees it
    /// (posting `didStartLoad` and `didFinishLoad` with the verification URL), and waits for the
    /// tokens. The session ends with `didComplete` (the verification URL) when it returns, or
    /// `didFail` when it throws. ``cancel()``, the timeout (the parameters' ``WebviewParameters/timeout``,
    /// else the code's lifetime) and the cancellation of the awaiting task end the session at once
    /// and cancel `operation`'s task; what showed the code is closed before the caller resumes.
    ///
    /// Call it on a new session instead of ``prepare()``.
    ///
    /// - Throws: `sessionAlreadyInProgress`, `canceled`, `timedOut`, the `expiry` error, or what
    ///   `operation` threw.
    @MainActor
    public func signInOnAnotherDevice<Value: Sendable>(
        _ operation: @escaping @MainActor (AnotherDeviceSignIn) async throws(WebAuthError) -> Value
    ) async throws(WebAuthError) -> Value {
        let progress = AnotherDeviceSignIn(session: self)
        return try await runWithoutProvider(
            named: "signInOnAnotherDevice",
            begin: {
                Self.logger.debug("session signs in on another device")
                if let timeout = parameters.timeout { armDeadline(timeout) }
            },
            completedAt: { () throws(WebAuthError) -> URL in
                guard let shown = progress.verificationURL else {
                    throw WebAuthError(.invalidParameters, "The sign-in on another device ended without showing its code (codeShown was not called).")
                }
                return shown
            },
            { () async throws(WebAuthError) -> Value in try await operation(progress) })
    }
}

/// What a sign-in on another device tells its session (``WebAuthSession/signInOnAnotherDevice(_:)``).
public final class AnotherDeviceSignIn: Sendable {
    private weak let session: WebAuthSession?
    private let shown = Mutex<URL?>(nil)

    init(session: WebAuthSession) {
        self.session = session
    }

    /// The page the person was told to open, once ``codeShown(at:lifetime:expiry:whenEnded:)`` said it.
    public var verificationURL: URL? { shown.withLock { $0 } }

    /// The person now sees the code and the link: posts `didStartLoad` and `didFinishLoad` with
    /// `verificationURL` (its query and fragment left out), and, when the parameters set no
    /// timeout, ends the session with `expiry` once `lifetime` has passed. `whenEnded` closes what
    /// shows the code; the session calls it once, on the main actor, when it ends in any way,
    /// before its caller resumes. A second call does nothing.
    @MainActor
    public func codeShown(
        at verificationURL: URL, lifetime: Duration, expiry: WebAuthError, whenEnded: @escaping @MainActor @Sendable () -> Void
    ) {
        guard let session else { return }
        let page = WebAuthSession.withoutQuery(verificationURL)
        let first = shown.withLock { url in
            guard url == nil else { return false }
            url = page
            return true
        }
        guard first else { return }
        let installed = session.state.withLock { state -> Bool in
            guard case .presenting(var presenting) = state else { return false }
            presenting.whenEnded = whenEnded
            state = .presenting(presenting)
            return true
        }
        guard installed else {
            whenEnded()  // the session ended while the code was being shown
            return
        }
        session.post(.didStartLoad(page))
        session.post(.didFinishLoad(page))
        if session.parameters.timeout == nil {
            session.armDeadline(lifetime, failing: expiry)
        }
    }
}
