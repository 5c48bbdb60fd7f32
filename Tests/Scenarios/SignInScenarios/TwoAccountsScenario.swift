// Switching accounts (issue 28), against the suite's Glewlwyd server in the library's window with
// its persistent store: alice signs in, then bob with `prompt=login` (the remembered session of
// alice's is not taken), both stay in one MSAL-format cache file, each renews with its own refresh
// token, and signing alice out of this app (the completion-handler form) leaves bob usable.
import Foundation
import ScenarioSupport
import SignIn
import WebviewHost

@MainActor
func twoAccountsScenario(clientID: String, cacheFile: String) async -> ScenarioReport {
    var facts = ScenarioReport()
    let webview = WebviewParameters(webviewType: .embedded, timeout: .seconds(60))
    do throws(WebAuthError) {
        let app = try PublicClientApplication(configuration: .init(
            clientID: clientID, authority: issuer, redirectURI: URL(string: "http://127.0.0.1:23685/embedded-callback")!,
            tokenCacheStorage: FileTokenCacheStorage(fileURL: URL(fileURLWithPath: cacheFile))))

        let aliceDriver = PageDriver(script: autopilotScript(username: "alice", passwords: ["alice-password"]))
        let alice = try await app.acquireToken(with: InteractiveTokenParameters(scopes: scopes, webviewParameters: webview))
        aliceDriver.stop()
        facts[.titles.prefixed(by: "first.")] = aliceDriver.titles

        // A second person on the same machine: the window remembers alice's session, so the app
        // asks for a fresh login (and hints bob's name, which a provider may prefill).
        let bobDriver = PageDriver(script: autopilotScript(username: "bob", passwords: ["bob-password"]))
        let bob = try await app.acquireToken(with: InteractiveTokenParameters(
            scopes: scopes, webviewParameters: webview, prompt: .login, loginHint: "bob@example.com"))
        bobDriver.stop()
        facts[.titles.prefixed(by: "second.")] = bobDriver.titles
        facts[.username] = alice.account.username ?? ""
        facts[.username.prefixed(by: "second.")] = bob.account.username ?? ""
        facts[.accountsAfter.prefixed(by: "both.")] = try await app.allAccounts().map { $0.username ?? "" }.sorted()

        // Each renews with its own refresh token and gets its own account back.
        for (name, result) in [("alice.", alice), ("bob.", bob)] {
            let renewed = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: scopes, account: result.account, forceRefresh: true))
            facts[.renewedSubject.prefixed(by: name)] = renewed.account.subject
            facts[.renewedAccessTokenDiffers.prefixed(by: name)] = renewed.accessToken != result.accessToken
        }

        // Alice signs out of this app, through the completion-handler form.
        let signedOut: Result<SignOutResult, WebAuthError> = await withCheckedContinuation { continuation in
            app.signOut(alice.account, with: SignOutParameters(reach: .thisApp)) { continuation.resume(returning: $0) }
        }
        facts[.tokensRemoved] = try signedOut.get().tokensRemoved
        facts[.accountsAfter] = try await app.allAccounts().map { $0.username ?? "" }
        let bobAgain = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: scopes, account: bob.account, forceRefresh: true))
        facts[.renewedSubject.prefixed(by: "after.")] = bobAgain.account.subject
        do throws(WebAuthError) {
            _ = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: scopes, account: alice.account))
            facts[.message.prefixed(by: "alice.")] = "renewed"
        } catch {
            facts[.message.prefixed(by: "alice.")] = "\(error.code)"
        }
        facts[.subject] = alice.account.subject
        facts[.subject.prefixed(by: "second.")] = bob.account.subject
        facts[.outcome] = "success"
    } catch {
        facts[.outcome] = "\(error.code)"
        facts[.message] = error.message
    }
    return facts
}
