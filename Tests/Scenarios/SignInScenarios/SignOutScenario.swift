// Sign in, sign out, sign in again (issue 28), against the suite's Glewlwyd server: in the
// library's window, a caller's view or the person's browser, the identity provider's session
// ended (its logout page, then the post-logout redirect) or only this app's tokens forgotten.
import CGLib
import CWebKitGTK3
import Foundation
import GLibSupport
import ScenarioSupport
import SignIn
import WebviewHost

@MainActor
func signOutScenario(where mode: String, reach: String, clientID: String, variant: String) async -> ScenarioReport {
    var facts = ScenarioReport()
    let browser = mode == "browser"
    let redirect = browser ? "http://127.0.0.1:23682/callback" : "http://127.0.0.1:23685/embedded-callback"
    let postLogout = URL(string: browser ? "http://127.0.0.1:23682/logged-out" : "http://127.0.0.1:23685/embedded-logged-out")!
    var webview: WebviewParameters
    switch mode {
    case "view":
        let window = gtk_window_new(GTK_WINDOW_TOPLEVEL)!
        gtk_window_set_default_size(wvh_window(window), 800, 700)
        let view = webkit_web_view_new()!
        gtk_container_add(wvh_container(window), view)
        gtk_widget_show_all(window)
        webview = WebviewParameters(customWebview: WebviewHandle(address: view), timeout: .seconds(60))
    case "browser":
        webview = WebviewParameters(webviewType: .authenticationSession, timeout: .seconds(60))
    default:
        webview = WebviewParameters(webviewType: .embedded, timeout: .seconds(60))
    }
    let logout: AutopilotLogout = switch variant {
    case "forge": .forge(postLogout.absoluteString + "?state=forged")
    case "cancel", "timeout": .wait
    default: .click
    }
    let driver = PageDriver(script: browser ? nil : autopilotScript(username: "alice", passwords: ["alice-password"], logout: logout))
    defer { driver.stop() }
    do throws(WebAuthError) {
        let app = try PublicClientApplication(configuration: .init(
            clientID: clientID, authority: issuer, redirectURI: URL(string: redirect)!, tokenCacheStorage: InMemoryTokenCacheStorage()))
        let first = try await app.acquireToken(with: InteractiveTokenParameters(scopes: scopes, webviewParameters: webview))
        facts[.titles.prefixed(by: "first.")] = driver.titles
        let before = driver.titles.count
        var logoutParameters = webview
        if variant == "timeout" { logoutParameters.timeout = .seconds(8) }
        let parameters = SignOutParameters(
            reach: reach == "app" ? .thisApp : .identityProvider, webviewParameters: logoutParameters, postLogoutRedirectURI: postLogout)
        let signOut = Task { @MainActor () -> Result<SignOutResult, WebAuthError> in
            do throws(WebAuthError) {
                return .success(try await app.signOut(first.account, with: parameters))
            } catch {
                return .failure(error)
            }
        }
        if variant == "cancel" {
            _ = await ScenarioHost.wait(upTo: Patience.event) { driver.titles.contains("wvh:logout-page") }
            app.cancelCurrentInteractiveSession()
        }
        let result = try await signOut.value.get()
        facts[.tokensRemoved] = result.tokensRemoved
        switch result.identityProvider {
        case .notAsked: facts[.signOutOutcome] = "notAsked"
        case .signedOut: facts[.signOutOutcome] = "signedOut"
        case .siteDataCleared(let sites): facts[.signOutOutcome] = "siteDataCleared \(sites.joined(separator: ","))"
        case .notPossible(let reason): facts[.signOutOutcome] = "notPossible: \(reason)"
        case .failed(let error): facts[.signOutOutcome] = "failed \(error.code)"
        }
        facts[.titles.prefixed(by: "logout.")] = Array(driver.titles.dropFirst(before))
        facts[.accountsAfter] = try await app.allAccounts().map { $0.username ?? "" }
        let afterLogout = driver.titles.count
        let second = try await app.acquireToken(with: InteractiveTokenParameters(scopes: scopes, webviewParameters: webview))
        facts[.titles.prefixed(by: "second.")] = Array(driver.titles.dropFirst(afterLogout))
        facts[.subject] = second.account.subject
        facts[.outcome] = "success"
    } catch {
        facts[.outcome] = "\(error.code)"
        facts[.message] = error.message
    }
    facts[.notifications] = driver.notifications
    facts[.loads] = driver.loads
    return facts
}
