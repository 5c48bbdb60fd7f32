import Foundation
import Synchronization
import WebviewHost

/// The authorization requests one interactive sign-in made: the first, and the one a hand-over
/// to the person's browser started, each with the URL and `state` the session was given for it.
/// The session checks the callback's `state` (once, against the request it waits for) and names
/// the request answered; this finds the verifier and nonce that go with it.
final class AuthorizationRequests: Sendable {
    private let made = Mutex<[(sent: AuthorizationRequestURL, request: AuthorizationRequest)]>([])

    /// Keeps `request` and returns what the session is given for it.
    func add(_ request: AuthorizationRequest, url: URL) -> AuthorizationRequestURL {
        let sent = AuthorizationRequestURL(url, state: request.state)
        made.withLock { $0.append((sent, request)) }
        return sent
    }

    /// The request the session says its response answers.
    func request(answeredBy sent: AuthorizationRequestURL?) -> AuthorizationRequest? {
        guard let sent else { return nil }
        return made.withLock { made in made.last { $0.sent == sent }?.request }
    }
}
