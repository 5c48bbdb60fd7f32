public import Foundation
import Logging
public import WebviewHost

extension PublicClientApplication {
    /// Posted (on the main thread, object: the application) when the token cache's store could
    /// not keep tokens, which are then kept in memory: when it cannot be opened before a sign-in
    /// (once: after the app chose memory for this run, later results carry the error without a
    /// notification), and when a sign-in's or a renewal's tokens could not be written.
    /// `userInfo["error"]` is the ``TokenCacheStorageError``.
    public static let tokenCacheDidFailNotification = Notification.Name("SignIn.PublicClientApplication.tokenCacheDidFail")

    /// Why some tokens are kept only in this process's memory now (they would be lost at exit),
    /// or `nil` when the store holds everything this process got. Reading it never touches the store.
    public var unsavedTokensError: TokenCacheStorageError? { cache.unsavedBecause }

    /// Writes the tokens kept only in memory to the token cache's store, and uses the store
    /// again after the app chose ``TokenCacheUnavailableDecision/keepInMemoryForThisRun``. Call it
    /// when the person says the keyring is unlocked (a "Try again" button). The store's prompt
    /// may show; the call is bounded by the store's time limit.
    ///
    /// - Throws: `providerUnavailable` with the store's ``TokenCacheStorageError`` when it still
    ///   cannot be used; the tokens stay in memory.
    public func saveUnsavedTokens() async throws(WebAuthError) {
        try await cache.attach()
    }

    static let tokenCacheLogger = Logger(label: "SignIn.tokenCache")

    /// Opens the store before the sign-in page, and lets the app decide when it cannot be.
    @MainActor
    func openTokenCacheBeforeSignIn() async throws(WebAuthError) {
        guard let failure = await cache.open() else { return }
        // The app decides what happens (its tokenCacheUnavailable): not an error of the library's.
        let decision = await configuration.tokenCacheUnavailable(failure)
        Self.tokenCacheLogger.notice(
            "The token cache could not be opened before the sign-in",
            metadata: ["code": "\(failure.code)", "reason": "\(failure.message)", "decision": "\(decision)"])
        switch decision {
        case .keepInMemoryForThisRun:
            cache.detach(because: failure)
            post(failure)
        case .stop:
            throw WebAuthError(
                .providerUnavailable, "The sign-in tokens could not be kept, so nobody was asked to sign in. \(failure.message)",
                underlyingError: failure)
        }
    }

    /// Stores `entry` and returns its result; a store that failed is on the result, logged and
    /// posted (unless the app already chose memory for this run, which was reported then).
    ///
    /// After a fresh interactive sign-in (`afterSignIn`), a store refused for a reason a new copy
    /// removes (a cache file others could write) is replaced now, and the result says so.
    func keep(_ entry: TokenCache.Entry, now: Date, afterSignIn: Bool = false) async -> AuthenticationResult {
        var result = entry.result
        guard let failure = await cache.keep(entry, now: now) else { return result }
        if afterSignIn, let notice = await cache.replaceRefusedStore() {
            Self.tokenCacheLogger.warning(
                "A token cache file others could write was replaced with a new one holding the new tokens",
                metadata: ["code": "\(notice.code)", "reason": "\(notice.message)"])
            result.tokenCacheError = notice
            return result
        }
        result.tokenCacheError = failure
        // Kept in memory for this run by the app's choice: reported once already, when the store
        // could not be opened.
        guard cache.detachedBecause == nil else { return result }
        Self.tokenCacheLogger.error(
            "The token cache's store did not keep the new tokens; they are kept in memory until its next write",
            metadata: ["code": "\(failure.code)", "reason": "\(failure.message)", "account": "\(entry.account.identifier)"])
        let application = self
        await MainActor.run { application.post(failure) }
        return result
    }

    @MainActor
    private func post(_ failure: TokenCacheStorageError) {
        NotificationCenter.default.post(name: Self.tokenCacheDidFailNotification, object: self, userInfo: ["error": failure])
    }
}
