import Foundation
import Synchronization
import WebviewHost

/// The system browser of the hand-over checks: a ``FakeWebviewProvider`` of kind
/// `.systemBrowser` that reports a load of the request it is presented and then waits for the
/// check to ``finish()`` it (the redirect with `code=from-browser` and the request's `state`).
final class ConformanceBrowser: Sendable {
    /// The presentation the browser was given, kept for ``finish()``.
    final class Shown: Sendable {
        let presentation = Mutex<FakeWebviewProvider.Presentation?>(nil)
    }

    private let shown = Shown()
    let provider: FakeWebviewProvider

    init() {
        let shown = shown
        provider = FakeWebviewProvider(
            id: "conformance-browser", displayName: "Conformance browser", priority: .max, kind: .systemBrowser,
            requiresDisplay: false,
            behavior: { presentation in
                shown.presentation.withLock { $0 = presentation }
                presentation.reporter.didStartLoad(presentation.authorizationURL)
            })
    }

    var log: FakeProviderLog { provider.log }

    /// The URL the browser was presented, once it was.
    var presented: URL? { shown.presentation.withLock { $0?.authorizationURL } }

    /// The person signs in in the browser: it reaches its redirect.
    @MainActor
    func finish() {
        guard let presentation = shown.presentation.withLock({ $0 }) else { return }
        presentation.reporter.handleRedirect(FakeWebviewProvider.callback(for: presentation, query: "code=from-browser"))
    }
}
