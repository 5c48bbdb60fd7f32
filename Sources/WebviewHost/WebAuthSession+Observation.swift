/// Main-actor handlers for sessions' events, on the path the `webAuth*` notifications take.
extension WebAuthSession {
    /// Calls `handler` on the main actor with each event this session delivers from now on, until
    /// the terminal event (included) or until the returned observation is invalidated or released.
    ///
    /// ```swift
    /// let observation = session.observe { event in
    ///     if case .didStartLoad = event { spinner.start() }   // on the main actor, synchronously
    /// }
    /// ```
    ///
    /// Delivery is that of the notifications: in order, on the main thread, never re-entrant (one
    /// event at a time in the process, whichever session it belongs to), and nothing after the
    /// terminal event. Each event reaches the notification observers first, then this session's
    /// observations, then those of ``observeAll(_:)``, each group in the order it was added. The
    /// handler may call ``cancel()`` (its `didFail` is delivered after the current event reached
    /// every observer) or start and stop observations (those started during an event see the next
    /// one). On a session that already delivered its terminal event the handler is never called.
    /// Any thread.
    ///
    /// Keep the returned observation: the session holds it only weakly. The handler (and what it
    /// captured, the session included) is released at the terminal event or on invalidation.
    public func observe(_ handler: @escaping @MainActor (WebAuthEvent) -> Void) -> WebAuthObservation {
        WebAuthObservation(on: channel.observers) { step in handler(step.event) }
    }

    /// Calls `handler` on the main actor with every event of every session in the process from now
    /// on, with the session it belongs to, until the returned observation is invalidated or
    /// released: for apps that never hold the session, such as those signing in with
    /// `PublicClientApplication.acquireToken(with:)` (the notifications with `object: nil`).
    ///
    /// ```swift
    /// let observation = WebAuthSession.observeAll { session, event in
    ///     statusLabel.text = "\(event)"                          // on the main actor, in order
    /// }
    /// ```
    ///
    /// Ordering, re-entrancy and the terminal event are as for ``observe(_:)``; observations of a
    /// session's own run before these. Any thread.
    public static func observeAll(
        _ handler: @escaping @MainActor (_ session: WebAuthSession, _ event: WebAuthEvent) -> Void
    ) -> WebAuthObservation {
        WebAuthObservation(on: .allSessions) { step in handler(step.session, step.event) }
    }

    /// As ``observe(_:)``, with each event's context: the session it belongs to and the view that
    /// showed it (``WebAuthStep``), for code that shows or records steps of several sessions
    /// and must never mix them up.
    ///
    /// ```swift
    /// let observation = session.observeSteps { step in
    ///     if case .didFinishLoad = step.event, let view = step.webview { inspector.show(view) }
    /// }
    /// ```
    public func observeSteps(_ handler: @escaping @MainActor (WebAuthStep) -> Void) -> WebAuthObservation {
        WebAuthObservation(on: channel.observers, handler: handler)
    }
}
