import Foundation
import WebviewHost
import WebviewHostTestKit

let testRedirect = URL(string: "http://127.0.0.1:8080/callback")!
let authorizationURL = URL(string: "https://idp.example.test/authorize?client_id=app&state=s-123")!
let graphical = WebviewEnvironment(variables: ["DISPLAY": ":99"])
let headless = WebviewEnvironment(variables: [:])

/// A provider of `kind` that finishes by `behavior`, registered in the current (isolated) registry.
@discardableResult
func registerFake(
    _ id: WebviewProviderID = "fake", kind: WebviewProviderKind = .other, priority: Int = 0,
    requiresDisplay: Bool = false, supportsCustomWebview: Bool = false,
    availability: WebviewProviderAvailability = .available,
    prepareRedirect: @escaping @Sendable (URL) throws -> URL = { $0 },
    preparesUntilDismissed: Bool = false,
    behavior: @escaping FakeWebviewProvider.Behavior = FakeWebviewProvider.redirect(query: "code=c1")
) -> FakeWebviewProvider {
    let provider = FakeWebviewProvider(
        id: id, priority: priority, kind: kind, requiresDisplay: requiresDisplay,
        supportsCustomWebview: supportsCustomWebview, availability: availability,
        prepareRedirect: prepareRedirect, preparesUntilDismissed: preparesUntilDismissed, behavior: behavior)
    WebviewProviderRegistry.register(provider)
    return provider
}

/// Collects a session's event stream to its end.
func collect(_ session: WebAuthSession) async -> [String] {
    var names: [String] = []
    for await event in session.events {
        names.append(String(describing: event).prefix { $0 != "(" }.description)
    }
    return names
}

/// Waits until `condition` holds, giving the main queue its turns, for at most `limit` (a
/// provider is dismissed on the main-loop turn right after the caller resumed). Returns whether it held.
@MainActor
func eventually(within limit: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
