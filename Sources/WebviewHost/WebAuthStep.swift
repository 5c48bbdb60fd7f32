/// One event of a session with where it happened: the session it belongs to and the view that
/// showed it. What ``WebAuthSession/observeSteps(_:)`` and the per-call observers of `SignIn`'s
/// calls (`acquireToken(with:onStep:)`) are given, so that an event never loses its owner.
public struct WebAuthStep: Sendable, CustomStringConvertible {
    /// The step.
    public let event: WebAuthEvent
    /// The session that sent it (one call may run more than one: a hand-over to the person's
    /// browser keeps its session; a sign-out's logout page is a session of its own).
    public let session: WebAuthSession
    /// The embedded view that showed the page (the library's or the app's), `nil` in the person's
    /// browser, before a view exists, and for a broker or another device.
    public let webview: WebviewHandle?

    public init(event: WebAuthEvent, session: WebAuthSession, webview: WebviewHandle?) {
        self.event = event
        self.session = session
        self.webview = webview
    }

    public var description: String { event.description }
}
