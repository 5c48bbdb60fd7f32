// A security key at the suite's Glewlwyd server (issue 42), in the library's window: the key is
// the test's virtual authenticator, reached through WEBVIEWHOST_VIRTUAL_AUTHENTICATORS.
//
// arguments: `<mode> <client id> [scope...]`, the modes:
//   register  alice signs in with her password, goes to her profile page and registers the key
//             there ("New component", pressed with a real Return key: the gesture `create`
//             needs); the scenario ends the sign-in once the page says it is registered.
//   sign-in   acquireToken for a client whose scope asks for the password and the key: the page
//             calls navigator.credentials.get, the library answers with the key. When the page
//             shows its own error instead, the scenario cancels, as a person would, and says how
//             long the end took.
// The page's steps are in `titles` (security-key-autopilot.js).
import CGLib
import Foundation
import ScenarioSupport
import SignIn
import WebviewHost

@MainActor
func securityKeyScenario(mode: String, clientID: String, extraScopes: [String]) async -> ScenarioReport {
    var facts = ScenarioReport()
    let title = "Glewlwyd security key test"
    var webview = WebviewParameters(webviewType: .embedded, timeout: .seconds(150))
    webview.windowTitle = title
    // Each run a first visit: no session of an earlier run, the password and the key each time.
    webview.prefersEphemeralWebBrowserSession = true
    let app: PublicClientApplication
    do throws(WebAuthError) {
        app = try PublicClientApplication(configuration: .init(
            clientID: clientID, authority: issuer, redirectURI: URL(string: "http://127.0.0.1:23685/embedded-callback")!,
            tokenCacheStorage: InMemoryTokenCacheStorage()))
    } catch {
        facts[.outcome] = "\(error.code)"
        facts[.message] = error.message
        return facts
    }
    let driver = PageDriver(script: securityKeyAutopilotScript(mode: mode, username: "alice", password: "alice-password"))
    let ending = SignInEnding()
    let parameters = InteractiveTokenParameters(scopes: scopes + extraScopes, webviewParameters: webview)
    let run = Task { @MainActor in
        do throws(WebAuthError) {
            ending.result = .success(try await app.acquireToken(with: parameters))
        } catch {
            ending.result = .failure(error)
        }
    }
    let shown = { (step: String) in driver.titles.contains("wvh:\(step)") }

    if mode == "register" {
        _ = await ScenarioHost.wait(upTo: Patience.scaled(.seconds(90))) { shown("register-ready") || ending.result != nil }
        // A real key press on the focused "New component" button; once more if the page did not
        // take the first (a window that was not yet focused).
        var presses = 0
        while shown("register-ready"), !shown("registered"), !shown("register-error"), ending.result == nil, presses < 2 {
            presses += 1
            _ = pressKey("search --onlyvisible --name '^\(title)$' windowfocus key Return")
            _ = await ScenarioHost.wait(upTo: Patience.scaled(.seconds(20))) {
                shown("registered") || shown("register-error") || ending.result != nil
            }
        }
        facts[.keyPresses] = presses
        app.cancelCurrentInteractiveSession()
        _ = await ScenarioHost.wait(upTo: Patience.scaled(.seconds(20))) { ending.result != nil }
        facts[.outcome] = shown("registered") ? "registered" : shown("register-error") ? "registerError" : "notRegistered"
        facts[.message] = ending.describe()
    } else {
        _ = await ScenarioHost.wait(upTo: Patience.scaled(.seconds(120))) {
            ending.result != nil || shown("key-error") || shown("must-register")
        }
        if ending.result == nil, shown("key-error") || shown("must-register") {
            // The page said the key did not sign her in; the person gives up.
            let start = ContinuousClock.now
            app.cancelCurrentInteractiveSession()
            _ = await ScenarioHost.wait(upTo: Patience.scaled(.seconds(20))) { ending.result != nil }
            facts[.secondsToEnd] = Int((ContinuousClock.now - start).components.seconds)
        }
        switch ending.result {
        case .success(let result):
            facts[.outcome] = "success"
            facts[.name] = result.account.name ?? ""
            facts[.username] = result.account.username ?? ""
            facts[.subject] = result.account.subject
            facts[.idTokenSubject] = result.idTokenClaims.subject
            facts[.issuer] = result.account.issuer
            facts[.scopes] = result.scopes
            facts[.idTokenAudience] = result.idTokenClaims.audience
            facts[.accessTokenLength] = result.accessToken.count
        case .failure(let error):
            facts[.outcome] = "\(error.code)"
            facts[.message] = error.message
        case nil:
            facts[.outcome] = "hung"
        }
    }
    if ending.result == nil {
        run.cancel()
        app.cancelCurrentInteractiveSession()
    }
    driver.stop()
    facts[.titles] = driver.titles
    facts[.loads] = driver.loads
    return facts
}

/// How the scenario's `acquireToken` ended, once it has.
@MainActor
private final class SignInEnding {
    var result: Result<AuthenticationResult, WebAuthError>?

    func describe() -> String {
        switch result {
        case .success: "success"
        case .failure(let error): "\(error.code): \(error.message)"
        case nil: "not ended"
        }
    }
}

/// security-key-autopilot.js with its placeholders filled in.
private func securityKeyAutopilotScript(mode: String, username: String, password: String) -> String {
    let script = (try? String(contentsOf: Checkout.fixture("Glewlwyd").appendingPathComponent("security-key-autopilot.js"), encoding: .utf8)) ?? ""
    let quoted = { (text: String) in String(decoding: (try? JSONEncoder().encode(text)) ?? Data(), as: UTF8.self) }
    return script
        .replacingOccurrences(of: "__MODE__", with: quoted(mode))
        .replacingOccurrences(of: "__USERNAME__", with: quoted(username))
        .replacingOccurrences(of: "__PASSWORD__", with: quoted(password))
}

/// Runs `xdotool <arguments>` (real input events through XTest); its exit status.
@MainActor
private func pressKey(_ arguments: String) -> Int32 {
    var status: gint = -1
    var error: UnsafeMutablePointer<GError>?
    guard g_spawn_command_line_sync("xdotool " + arguments, nil, nil, &status, &error) != 0 else {
        if let error { g_error_free(error) }
        return -1
    }
    return status
}
