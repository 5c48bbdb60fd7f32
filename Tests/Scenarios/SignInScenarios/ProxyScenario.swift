// Everything a sign-in sends, through the proxy the test set (issue 33): the desktop's proxy
// (GNOME's settings, or the environment's variables, whichever the test gave this process) is
// the route of the embedded view's pages and of SignIn's own requests alike. In one run: an
// interactive sign-in (the library's window or the app's view), a renewal, a sign-out at the
// identity provider, and a device-code sign-in approved on "the phone" (straight to Glewlwyd,
// not through the proxy). The test reads the proxy's log. On GTK 3 (SignInScenarios) and GTK 4
// (SignInScenariosGTK4, which links this file).
import CGLib
import Foundation
import GLibSupport
import ScenarioSupport
import SignIn
import Synchronization
import WebviewHost

@MainActor
func proxyScenario(where mode: String, clientID: String, deviceClientID: String) async -> ScenarioReport {
    var facts = ScenarioReport()
    var webview = WebviewParameters(webviewType: .embedded, timeout: .seconds(60))
    if mode == "view" {
        webview = WebviewParameters(customWebview: WebviewHandle(appWindowWithView().view), timeout: .seconds(60))
    }
    let driver = PageDriver(script: autopilotScript(username: "alice", passwords: ["alice-password"]))
    defer { driver.stop() }
    var step = "sign-in"
    // SIGNIN_PROXY_PASSWORDS: the app answers the proxy's question with these, one per question
    // (the last again when they run out); the test counts the questions.
    let asks = Asks()
    if let passwords = environment["SIGNIN_PROXY_PASSWORDS"]?.split(separator: ",").map(String.init), !passwords.isEmpty {
        ProxyAuthentication.ask = { _ in
            let index = asks.next()
            return ProxyCredential(user: "alice-proxy", password: passwords[min(index, passwords.count - 1)])
        }
    }
    do throws(WebAuthError) {
        // SIGNIN_NETWORK_PROXY: the app's proxy, on both configurations.
        let appProxy = try environment["SIGNIN_NETWORK_PROXY"].map { address throws(WebAuthError) in try NetworkProxy(address) }
        var configuration = PublicClientApplicationConfiguration(
            clientID: clientID, authority: issuer, redirectURI: URL(string: "http://127.0.0.1:53685/embedded-callback")!,
            tokenCacheStorage: InMemoryTokenCacheStorage())
        configuration.networkProxy = appProxy
        let app = try PublicClientApplication(configuration: configuration)
        let first = try await app.acquireToken(with: InteractiveTokenParameters(scopes: scopes, webviewParameters: webview))
        facts[.username] = first.account.username ?? ""
        step = "renewal"
        let renewed = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: scopes, account: first.account, forceRefresh: true))
        facts[.renewedAccessTokenDiffers] = renewed.accessToken != first.accessToken
        step = "sign-out"
        let signedOut = try await app.signOut(first.account, with: SignOutParameters(
            reach: .identityProvider, webviewParameters: webview,
            postLogoutRedirectURI: URL(string: "http://127.0.0.1:53685/embedded-logged-out")!))
        switch signedOut.identityProvider {
        case .signedOut: facts[.signOutOutcome] = "signedOut"
        case .notAsked: facts[.signOutOutcome] = "notAsked"
        case .siteDataCleared(let sites): facts[.signOutOutcome] = "siteDataCleared \(sites.joined(separator: ","))"
        case .notPossible(let reason): facts[.signOutOutcome] = "notPossible: \(reason)"
        case .failed(let error): facts[.signOutOutcome] = "failed \(error.code): \(error.message)"
        }
        step = "device code"
        var deviceConfiguration = PublicClientApplicationConfiguration(
            clientID: deviceClientID, authority: issuer, redirectURI: URL(string: "http://127.0.0.1/callback")!,
            defaultScopes: ["openid", "profile", "email", "offline_access"], tokenCacheStorage: InMemoryTokenCacheStorage())
        deviceConfiguration.networkProxy = appProxy
        let device = try PublicClientApplication(configuration: deviceConfiguration)
        let approval = Mutex<Task<String, Never>?>(nil)
        let base = issuer.absoluteString.replacingOccurrences(of: "/api/oidc", with: "")
        let username = environment["GLEWLWYD_USERNAME"] ?? "alice", password = environment["GLEWLWYD_PASSWORD"] ?? "alice-password"
        let approver = Checkout.fixture("Glewlwyd").appendingPathComponent("approve_device.py").path
        let byCode = try await device.acquireTokenWithDeviceCode(with: DeviceCodeParameters(scopes: [], display: .app { challenge in
            // The phone: straight to Glewlwyd (Python ignores GNOME's settings).
            approval.withLock {
                $0 = Task {
                    let run = try? await ScriptRunner.run("python3", [approver, base, username, password, challenge.userCode], timeout: 30)
                    return run?.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                }
            }
        }))
        facts[.approval] = await approval.withLock { $0 }?.value ?? ""
        facts[.deviceUsername] = byCode.account.username ?? ""
        facts[.outcome] = "success"
    } catch {
        facts[.outcome] = "\(error.code)"
        facts[.message] = "\(step): \(error.message)"
    }
    facts[.loads] = driver.loads
    facts[.proxyAsks] = asks.count
    return facts
}

/// The questions the proxy asked the app.
final class Asks: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    /// Counts one question; returns how many came before it.
    func next() -> Int {
        value.withLock { count in
            count += 1
            return count - 1
        }
    }
}
