import Synchronization
import WebviewHost

/// One interactive call in progress (a sign-in, a sign-out, a device code), so that it can be
/// cancelled from any thread, also before its web session exists (during discovery).
final class InteractionHandle: Sendable {
    private let state = Mutex<(session: WebAuthSession?, canceled: Bool, observations: [WebAuthObservation])>((nil, false, []))
    /// The call's own observer: every event of every session this call attaches, and nothing else.
    private let onStep: (@MainActor @Sendable (WebAuthStep) -> Void)?

    init(onStep: (@MainActor @Sendable (WebAuthStep) -> Void)? = nil) {
        self.onStep = onStep
    }

    /// Attaches the web session (its events go to the call's observer, from now to its terminal
    /// event); cancels it at once if the call was already cancelled.
    func attach(_ session: WebAuthSession) {
        let observation = onStep.map { session.observeSteps($0) }
        let canceled = state.withLock {
            $0.session = session
            if let observation { $0.observations.append(observation) }
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

    /// Throws `canceled` when the call was cancelled, through the app or the task.
    func checkNotCanceled() throws(WebAuthError) {
        if isCanceled || Task.isCancelled { throw WebAuthError.canceled() }
    }
}

/// The interactive calls in progress of one application: each registers itself for its whole
/// run, and ``PublicClientApplication/cancelCurrentInteractiveSession()`` cancels them all. (One
/// slot for the last call would let a second call, failing with `sessionAlreadyInProgress`,
/// take the running one's place and leave that one impossible to cancel.)
final class Interactions: Sendable {
    private let running = Mutex<[InteractionHandle]>([])

    /// Runs `body` with a handle registered for its whole run; the preamble every interactive call
    /// shares. `window`: the app's window a proxy's question goes over (the parameters' `parentWindow`).
    nonisolated(nonsending)
    func run<Value>(
        over window: WindowHandle? = nil, onStep: (@MainActor @Sendable (WebAuthStep) -> Void)? = nil,
        _ body: (InteractionHandle) async throws(WebAuthError) -> Value
    ) async throws(WebAuthError) -> Value {
        let interaction = InteractionHandle(onStep: onStep)
        running.withLock { $0.append(interaction) }
        defer { running.withLock { $0.removeAll { $0 === interaction } } }
        try interaction.checkNotCanceled()
        return try await ProxyAuthentication.asking(over: window) { () async throws(WebAuthError) -> Value in
            try await body(interaction)
        }
    }

    /// Cancels every call in progress; nothing when none runs.
    func cancelAll() {
        for interaction in running.withLock({ $0 }) { interaction.cancel() }
    }
}
