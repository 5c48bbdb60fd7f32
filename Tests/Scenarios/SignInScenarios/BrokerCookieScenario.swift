// An embedded sign-in at an authority the library takes for Entra ID (fake_entra.py: its
// discovery document has `cloud_instance_name`) on a device where Microsoft's identity broker
// runs (the D-Bus double on BROKER_BUS): the broker is registered but not used for the sign-in
// itself (`usesTokenBroker` stays off), so PublicClientApplication asks it for its PRT SSO
// cookie and the view sends it to the authorization endpoint's host.
import Foundation
import MicrosoftIdentityBroker
import ScenarioSupport
import SignIn
import WebviewHost

/// `<client id> [no-broker] [off]`: `no-broker` registers none, `off` turns
/// `usesBrokerSignInCookies` off.
@MainActor
func brokerCookieSignIn(_ arguments: [String]) async -> ScenarioReport {
    if !arguments.contains("no-broker"), let bus = environment["BROKER_BUS"] {
        TokenBrokerRegistry.register(MicrosoftIdentityBroker(busAddress: bus, authorityHosts: ["127.0.0.1"], callTimeout: .seconds(20)))
    }
    var facts = ScenarioReport()
    do throws(WebAuthError) {
        var configuration = PublicClientApplicationConfiguration(
            clientID: arguments.first ?? "entra-app", authority: issuer,
            redirectURI: URL(string: "http://127.0.0.1:23685/embedded-callback")!, tokenCacheStorage: InMemoryTokenCacheStorage())
        configuration.usesBrokerSignInCookies = !arguments.contains("off")
        let app = try PublicClientApplication(configuration: configuration)
        let result = try await app.acquireToken(with: InteractiveTokenParameters(
            scopes: ["User.Read"], webviewParameters: WebviewParameters(webviewType: .embedded, timeout: .seconds(60))))
        facts[.outcome] = "success"
        facts[.subject] = result.account.subject
    } catch {
        facts[.outcome] = "\(error.code)"
        facts[.message] = error.message
    }
    return facts
}
