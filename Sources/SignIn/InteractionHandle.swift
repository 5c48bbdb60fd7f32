import Synchronization
import WebviewHost

/// The interactive sign-in in progress, so that it can be cancelled from any thread, also
/// before its web session exists (during discovery).
final class InteractionHandle: Sendable {
    private let state = Mutex<(session: WebAuthSession?, canceled: Bool)>((nil, false))

    /// Attaches the web session; cancels it at once if the sign-in was already cancelled.
    func attach(_ session: WebAuthSession) {
        let canceled = state.withLock {
            $0.session = session
            return $0.canceled
        }
        if canceled { session.cancel() }
    }

    func cancel() {
        let session = state.withLock {
            $0.canceled = true
            return $0.session
        }
        session?.cancel()
    }

    var isCanceled: Bool { state.withLock { $0.canceled } }
}
