import Foundation
import ScenarioSupport
import Synchronization
import Testing
import WebviewHost

@testable import SignIn

/// A finished sign-in is never lost to a failing token store, and the store is opened before the
/// person is asked anything; against the real Glewlwyd server with the scripted browser. In
/// ``GlewlwydSignInTests`` so that they share its server.
extension GlewlwydSignInTests {
    func makeApplication(
        storage: any TokenCacheStorage, clock: TestClock = TestClock(),
        decision: @escaping @MainActor @Sendable (TokenCacheStorageError) async -> TokenCacheUnavailableDecision = { _ in .keepInMemoryForThisRun }
    ) throws -> PublicClientApplication {
        try PublicClientApplication(configuration: .init(
            clientID: server.clientID, authority: server.issuer, redirectURI: requestedRedirect,
            defaultScopes: ["openid", "profile", "email", "offline_access"], networkTimeout: 15,
            now: { clock.now }, tokenCacheStorage: storage, tokenCacheUnavailable: decision))
    }

    /// The ``PublicClientApplication/tokenCacheDidFailNotification``s posted while `body` runs.
    func failureNotifications<T>(_ body: () async throws -> T) async rethrows -> (T, [TokenCacheStorageError]) {
        let seen = Mutex<[TokenCacheStorageError]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: PublicClientApplication.tokenCacheDidFailNotification, object: nil, queue: nil
        ) { notification in
            if let error = notification.userInfo?["error"] as? TokenCacheStorageError { seen.withLock { $0.append(error) } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let value = try await body()
        return (value, seen.withLock { $0 })
    }

    @Test func theStoreIsOpenedBeforeTheSignInPageIsShown() async throws {
        let browser = provider(.signIn([alice]))
        let storage = ControlledTokenCacheStorage(log: browser.log)
        let app = try makeApplication(storage: storage)
        let result = try await acquireToken(app, through: browser).get()
        #expect(result.tokenCacheError == nil)
        let events = browser.log.all.map { $0.hasPrefix("authorize ") ? "authorize" : $0 }
        let page = try #require(events.firstIndex(of: "authorize"), "\(events)")
        let opened = try #require(events.firstIndex(of: "store prepare"), "\(events)")
        #expect(opened < page, "the store was first touched after the page: \(events)")
        #expect(events[..<page].contains("store load"), "the cache was read before the page: \(events)")
        #expect(events[page...].contains("store save"), "the tokens were written after the sign-in: \(events)")
    }

    @Test func aStoreThatCannotBeOpenedIsReportedBeforeThePageAndTheAppMayStop() async throws {
        let browser = provider(.signIn([alice]))
        let storage = ControlledTokenCacheStorage(log: browser.log)
        storage.fail(prepare: true, load: true, save: true)
        let app = try makeApplication(storage: storage) { error in
            browser.log.append("app asked: \(error.code)")
            return .stop
        }
        let error = try #require(await acquireToken(app, through: browser).failure)
        #expect(error.code == .providerUnavailable)
        #expect((error.underlyingError as? TokenCacheStorageError)?.code == .locked)
        #expect(error.message.contains("unlock"))
        let events = browser.log.all
        #expect(events.filter { $0 == "app asked: locked" }.count == 1)
        #expect(!events.contains { $0.hasPrefix("authorize ") }, "the page was shown: \(events)")
    }

    @Test func aSignInKeptInMemoryWhenTheStoreCannotBeOpenedIsSavedWhenItWorksAgain() async throws {
        let browser = provider(.signIn([alice]))
        let storage = ControlledTokenCacheStorage(log: browser.log)
        storage.fail(prepare: true, load: true, save: true)
        let app = try makeApplication(storage: storage)
        let (result, posted) = try await failureNotifications { try await acquireToken(app, through: browser).get() }
        #expect(result.tokenCacheError?.code == .locked, "the app sees why its tokens were not kept")
        #expect(posted.map(\.code) == [.locked], "one notification, before the page")
        #expect(app.unsavedTokensError?.code == .locked)
        #expect(app.accounts == [result.account])
        // Memory for this run: after the failed opening, the store is left alone (no prompts, no waits).
        let afterOpening = browser.log.all.drop { !$0.hasPrefix("store prepare failed") }.dropFirst()
        #expect(!afterOpening.contains { $0.hasPrefix("store ") }, "\(afterOpening)")

        // Silent calls in this process work from memory.
        let silent = try await app.acquireTokenSilent(with: .init(scopes: [], account: result.account))
        #expect(silent.accessToken == result.accessToken)
        #expect(silent.tokenCacheError?.code == .locked)

        // Still locked: saving fails, and nothing is lost.
        var stillLocked: WebAuthError?
        do throws(WebAuthError) { try await app.saveUnsavedTokens() } catch { stillLocked = error }
        #expect((stillLocked?.underlyingError as? TokenCacheStorageError)?.code == .locked)
        #expect(app.unsavedTokensError?.code == .locked)
        #expect(storage.saved == nil)

        // The person unlocked the keyring and pressed "Try again".
        storage.fail(prepare: false, load: false, save: false)
        try await app.saveUnsavedTokens()
        #expect(app.unsavedTokensError == nil)
        let later = try makeApplication(storage: storage)
        #expect(try await later.allAccounts() == [result.account])
        let restarted = try await later.acquireTokenSilent(with: .init(scopes: [], account: result.account))
        #expect(restarted.accessToken == result.accessToken)
        #expect(restarted.refreshToken == result.refreshToken)
        #expect(restarted.tokenCacheError == nil)
    }

    @Test func signingOutWhileTokensAreKeptInMemoryReachesTheStoreWhenItWorksAgain() async throws {
        let browser = provider(.signIn([alice]))
        let storage = ControlledTokenCacheStorage(log: browser.log)
        let first = try makeApplication(storage: storage)
        let account = try await acquireToken(first, through: browser).get().account  // stored

        storage.fail(prepare: true, load: true, save: true)
        let app = try makeApplication(storage: storage)
        let again = try await acquireToken(app, through: provider(.signIn([alice]))).get()
        #expect(again.tokenCacheError?.code == .locked)
        #expect(try await app.remove(account) == true)
        #expect(try await app.allAccounts() == [])

        storage.fail(prepare: false, load: false, save: false)
        try await app.saveUnsavedTokens()
        #expect(try await makeApplication(storage: storage).allAccounts() == [], "the sign-out reached the store")
    }

    @Test func tokensTheStoreDidNotWriteAreKeptUntilItsNextWrite() async throws {
        let clock = TestClock()
        let browser = provider(.signIn([alice]))
        let storage = ControlledTokenCacheStorage(log: browser.log)
        storage.fail(prepare: false, load: false, save: true)  // opens, then the write fails
        let app = try makeApplication(storage: storage, clock: clock)
        let (result, posted) = try await failureNotifications { try await acquireToken(app, through: browser).get() }
        #expect(result.tokenCacheError?.code == .locked)
        #expect(posted.map(\.code) == [.locked])
        #expect(storage.saved == nil)
        #expect(try await app.allAccounts() == [result.account], "read from the store, with what memory holds on top")

        // A renewal whose result cannot be stored either: returned, kept, reported.
        clock.advance(by: 56 * 60)
        let renewed = try await app.acquireTokenSilent(with: .init(scopes: [], account: result.account))
        #expect(renewed.accessToken != result.accessToken)
        #expect(renewed.tokenCacheError?.code == .locked)
        let cached = try await app.acquireTokenSilent(with: .init(scopes: [], account: result.account))
        #expect(cached.accessToken == renewed.accessToken, "the renewed token is used from memory, not renewed again")

        // The store works again: its next write (a forced renewal here) stores everything.
        storage.fail(prepare: false, load: false, save: false)
        let stored = try await app.acquireTokenSilent(with: .init(scopes: [], account: result.account, forceRefresh: true))
        #expect(stored.tokenCacheError == nil)
        #expect(app.unsavedTokensError == nil)
        let later = try makeApplication(storage: storage, clock: clock)
        let restarted = try await later.acquireTokenSilent(with: .init(scopes: [], account: result.account))
        #expect(restarted.accessToken == stored.accessToken)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
