import Synchronization
import WebviewHost

/// The authorization requests one interactive sign-in made: the first, and the one a hand-over
/// to the person's browser started. The response names its request by `state`.
final class AuthorizationRequests: Sendable {
    private let made = Mutex<[AuthorizationRequest]>([])

    func add(_ request: AuthorizationRequest) {
        made.withLock { $0.append(request) }
    }

    /// The request whose `state` the response carries (the session already refused any other).
    func answered(by response: WebAuthResponse) -> AuthorizationRequest? {
        made.withLock { requests in requests.last { $0.state == response.state } }
    }
}
