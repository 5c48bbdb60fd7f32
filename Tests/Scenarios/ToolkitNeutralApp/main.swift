// ToolkitNeutralApp: a program built from the toolkit-neutral pieces only (WebviewHost,
// SystemBrowserProvider, SignIn, MicrosoftIdentityBroker), as a GTK 3 app, a GTK 4 app or a terminal tool would use them.
// ToolkitLinkTests runs `ldd` on it: it must link neither GTK 3 nor GTK 4 (nor any WebKitGTK).
// Run, it prints which providers it registered and the client it would sign in with.
import Foundation
import MicrosoftIdentityBroker
import SignIn
import SystemBrowserProvider
import WebviewHost

WebviewProviderRegistry.register(SystemBrowserProvider())
let application = try PublicClientApplication(configuration: .init(
    clientID: "toolkit-neutral", authority: URL(string: "https://login.example.com/tenant")!,
    redirectURI: URL(string: "http://127.0.0.1/callback")!, tokenCacheStorage: InMemoryTokenCacheStorage()))
TokenBrokerRegistry.register(MicrosoftIdentityBroker())
print("providers: \(WebviewProviderRegistry.providers.map(\.id))")
print("brokers: \(TokenBrokerRegistry.brokers.map(\.id))")
print("client: \(application.configuration.clientID)")
