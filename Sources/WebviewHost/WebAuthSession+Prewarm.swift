/// Warm start: the app tells the host a sign-in is likely soon (it shows its sign-in button).
extension WebAuthSession {
    /// Lets the provider that a session with `parameters` would use prepare ahead of time, so that
    /// session shows its page sooner: the embedded provider makes its window, with the web
    /// process running and `authorityHost` resolved (see `EmbeddedWebviewProvider.prewarm`); the
    /// system browser needs nothing. Main thread. Returns the provider's id, or `nil` when no
    /// provider would be chosen (the session would then fail with the policy's error).
    @MainActor
    @discardableResult
    public static func prewarm(
        parameters: WebviewParameters = WebviewParameters(), authorityHost: String? = nil,
        environment: WebviewEnvironment = .current
    ) -> WebviewProviderID? {
        let store = ProviderStore.current
        guard let provider = try? store.selectProvider(for: parameters, in: environment)
        else { return nil }
        provider.prewarm(parameters: parameters, authorityHost: authorityHost)
        return provider.id
    }
}
