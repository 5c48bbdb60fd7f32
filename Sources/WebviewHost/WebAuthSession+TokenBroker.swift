public import Foundation
import Logging
import Synchronization

extension WebAuthSession {
    /// Runs a token broker (a program that signs people in and returns tokens, not a callback)
    /// as this session, in place of a web user agent: the session takes the one-session slot,
    /// posts `webAuthWillSwitchToBrokerApp` with `url` (the authority the broker signs in at),
    /// runs `operation`, and ends with `webAuthDidComplete` (with `url`) when it returns or
    /// `webAuthDidFail` when it throws. ``cancel()``, the parameters' timeout or the cancellation of
    /// the awaiting task end the session with `canceled` (or `timedOut`) at once and cancel
    /// `operation`'s task, which must then end the broker's flow.
    ///
    /// Call it on a new session instead of ``prepare()``; the session's observers and
    /// notifications see the same contract as for any provider.
    ///
    /// - Throws: `sessionAlreadyInProgress`, `canceled`, `timedOut`, or what `operation` threw.
    @MainActor
    public func handOverToBroker<Value: Sendable>(
        at url: URL, _ operation: @escaping @Sendable () async throws(WebAuthError) -> Value
    ) async throws(WebAuthError) -> Value {
        try await runWithoutProvider(
            named: "handOverToBroker(at:)",
            begin: {
                Self.logger.debug("session handed over to a token broker")
                post(.willSwitchToBrokerApp(url))
                armTimeout()  // only the parameters' timeout: no provider, and the broker has none of its own
            },
            completedAt: { Self.withoutQuery(url) },
            operation)
    }

    /// `url` without query and fragment: an event names the page or authority, never parameters
    /// (a code in a verification link's query).
    static func withoutQuery(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.query = nil
        components.fragment = nil
        return components.url ?? url
    }
}
