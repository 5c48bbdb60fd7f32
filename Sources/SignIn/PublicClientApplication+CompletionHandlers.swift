public import WebviewHost

/// The completion-handler forms, for code that does not use Swift concurrency.
extension PublicClientApplication {
    /// ``acquireToken(with:)`` with a completion handler, called once on the main thread.
    public func acquireToken(
        with parameters: InteractiveTokenParameters,
        completion: @escaping @MainActor @Sendable (Result<AuthenticationResult, WebAuthError>) -> Void
    ) {
        Task { @MainActor in
            do throws(WebAuthError) {
                completion(.success(try await acquireToken(with: parameters)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// ``signOut(_:with:)`` with a completion handler, called once on the main thread.
    public func signOut(
        _ account: Account, with parameters: SignOutParameters = SignOutParameters(),
        completion: @escaping @MainActor @Sendable (Result<SignOutResult, WebAuthError>) -> Void
    ) {
        Task { @MainActor in
            do throws(WebAuthError) {
                completion(.success(try await signOut(account, with: parameters)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// ``acquireTokenWithDeviceCode(with:)`` with a completion handler, called once on the main
    /// thread.
    public func acquireTokenWithDeviceCode(
        with parameters: DeviceCodeParameters,
        completion: @escaping @MainActor @Sendable (Result<AuthenticationResult, WebAuthError>) -> Void
    ) {
        Task { @MainActor in
            do throws(WebAuthError) {
                completion(.success(try await acquireTokenWithDeviceCode(with: parameters)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// ``acquireTokenSilent(with:)`` with a completion handler, called once on the main thread.
    public func acquireTokenSilent(
        with parameters: SilentTokenParameters,
        completion: @escaping @MainActor @Sendable (Result<AuthenticationResult, WebAuthError>) -> Void
    ) {
        callBackOnMain(completion) { () async throws(WebAuthError) in try await self.acquireTokenSilent(with: parameters) }
    }

    /// ``allAccounts()`` with a completion handler, called once on the main thread.
    public func allAccounts(completion: @escaping @MainActor @Sendable (Result<[Account], WebAuthError>) -> Void) {
        callBackOnMain(completion) { () async throws(WebAuthError) in try await self.allAccounts() }
    }

    /// Runs `operation` off the main thread and hands its result to `completion` on the main actor, once.
    private func callBackOnMain<Value: Sendable>(
        _ completion: @escaping @MainActor @Sendable (Result<Value, WebAuthError>) -> Void,
        _ operation: @escaping @Sendable () async throws(WebAuthError) -> Value
    ) {
        Task {
            let result: Result<Value, WebAuthError>
            do throws(WebAuthError) {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            await MainActor.run { completion(result) }
        }
    }
}
