public import Foundation

/// The completion-handler forms, for code that does not use Swift concurrency.
extension WebAuthSession {
    /// ``authenticate(expectedState:authorizationURL:)`` with a completion handler, called once on the main thread.
    public func authenticate(
        expectedState: String? = nil,
        authorizationURL makeAuthorizationURL: @escaping @Sendable (_ redirectURI: URL) throws -> URL,
        completion: @escaping @MainActor @Sendable (Result<WebAuthResponse, WebAuthError>) -> Void
    ) {
        callBack(completion) { () async throws(WebAuthError) in
            try await self.authenticate(expectedState: expectedState, authorizationURL: makeAuthorizationURL)
        }
    }

    /// ``prepare()`` with a completion handler, called once on the main thread.
    public func prepare(completion: @escaping @MainActor @Sendable (Result<URL, WebAuthError>) -> Void) {
        callBack(completion) { () async throws(WebAuthError) in try await self.prepare() }
    }

    /// ``start(authorizationURL:expectedState:)`` with a completion handler, called once on the main thread.
    public func start(
        authorizationURL: URL, expectedState: String? = nil,
        completion: @escaping @MainActor @Sendable (Result<WebAuthResponse, WebAuthError>) -> Void
    ) {
        callBack(completion) { () async throws(WebAuthError) in
            try await self.start(authorizationURL: authorizationURL, expectedState: expectedState)
        }
    }

    /// Runs `operation` on the main actor and hands its result to `completion`, once.
    private func callBack<Value: Sendable>(
        _ completion: @escaping @MainActor @Sendable (Result<Value, WebAuthError>) -> Void,
        _ operation: @escaping @MainActor @Sendable () async throws(WebAuthError) -> Value
    ) {
        Task { @MainActor in
            do throws(WebAuthError) {
                completion(.success(try await operation()))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
