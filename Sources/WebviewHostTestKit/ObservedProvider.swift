import Foundation
import Synchronization
import WebviewHost

/// The provider under a hand-over check, unchanged but watched: its sessions' reporter and how
/// often they were dismissed go to a ``ProviderObserver``.
struct ObservedProvider: WebviewProvider {
    let base: any WebviewProvider
    let observer: ProviderObserver

    init(_ base: any WebviewProvider, observer: ProviderObserver) {
        self.base = base
        self.observer = observer
    }

    var id: WebviewProviderID { base.id }
    var displayName: String { base.displayName }
    var priority: Int { base.priority }
    var kind: WebviewProviderKind { base.kind }
    var requiresDisplay: Bool { base.requiresDisplay }
    var supportsCustomWebview: Bool { base.supportsCustomWebview }
    var defaultTimeout: Duration? { base.defaultTimeout }
    var brokerSchemes: Set<String> { base.brokerSchemes }
    var origin: String? { base.origin }

    func availability(in environment: WebviewEnvironment) -> WebviewProviderAvailability {
        base.availability(in: environment)
    }

    @MainActor
    func prewarm(parameters: WebviewParameters, authorityHost: String?) {
        base.prewarm(parameters: parameters, authorityHost: authorityHost)
    }

    @MainActor
    func makeSession(for request: WebAuthRequest, reporter: WebAuthSessionReporter) throws -> any WebviewProviderSession {
        observer.made(reporter)
        return ObservedSession(base: try base.makeSession(for: request, reporter: reporter), observer: observer)
    }
}

/// A session of an ``ObservedProvider``: passes every call on, counting `dismiss()`.
@MainActor
final class ObservedSession: WebviewProviderSession {
    let base: any WebviewProviderSession
    let observer: ProviderObserver

    init(base: any WebviewProviderSession, observer: ProviderObserver) {
        self.base = base
        self.observer = observer
    }

    func prepare() async throws -> URL { try await base.prepare() }
    func present(authorizationURL: URL) throws { try base.present(authorizationURL: authorizationURL) }
    func dismiss() {
        observer.dismissed()
        base.dismiss()
    }
}
