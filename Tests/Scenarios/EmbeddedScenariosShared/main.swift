// The scenario program: EmbeddedScenariosGTK3 (GTK 3) or EmbeddedScenariosGTK4 (GTK 4), the same
// scenarios over the provider of the target's toolkit.
#if WEBKITGTK_6
import EmbeddedWebviewProviderGTK4
#else
import EmbeddedWebviewProviderGTK3
#endif
import ScenarioSupport
import WebviewHost

/// The scenarios, one static closure each (in the files of their topic), chosen by name below.
enum EmbeddedScenarios {}

WebviewProviderRegistry.register(EmbeddedWebviewProvider())
ScenarioHost.main(EmbeddedScenario.self, initializeToolkit: Toolkit.initialize) { name in
    switch name {
    case .appAfter: EmbeddedScenarios.appAfter
    case .appAfterHistory: EmbeddedScenarios.appAfterHistory
    case .appearance: EmbeddedScenarios.appearance
    case .handover: EmbeddedScenarios.handover
    case .page: EmbeddedScenarios.page
    case .outcome: EmbeddedScenarios.outcome
    case .schemes: EmbeddedScenarios.schemes
    case .privateData: EmbeddedScenarios.privateData
    case .prewarm: EmbeddedScenarios.prewarm
    case .prewarmForSession: EmbeddedScenarios.prewarmForSession
    case .login: EmbeddedScenarios.login
    case .redirect: EmbeddedScenarios.redirect
    case .newWindows: EmbeddedScenarios.newWindows
    case .failure: EmbeddedScenarios.failure
    case .secondSession: EmbeddedScenarios.secondSession
    case .customView: EmbeddedScenarios.customView
    case .customViewAuthenticationSession: EmbeddedScenarios.customViewAuthenticationSession
    case .cookies: EmbeddedScenarios.cookies
    case .cookieStep: EmbeddedScenarios.cookieStep
    case .slowPage: EmbeddedScenarios.slowPage
    case .broker: EmbeddedScenarios.broker
    case .conformance: EmbeddedScenarios.conformance
    case .pkeyAuth: EmbeddedScenarios.pkeyAuth
    case .signInCookies: EmbeddedScenarios.signInCookies
    case .negotiate: EmbeddedScenarios.negotiate
    case .clientCertificate: EmbeddedScenarios.clientCertificate
    case .show: EmbeddedScenarios.show
    case .surface: EmbeddedScenarios.surface
    case .webPlatform: EmbeddedScenarios.webPlatform
    case .siteData: EmbeddedScenarios.siteData
    case .deviceCodeWindow: EmbeddedScenarios.deviceCodeWindow
    case .localizedWindows: EmbeddedScenarios.localizedWindows
    case .accessibility: EmbeddedScenarios.accessibility
    case .keyboard: EmbeddedScenarios.keyboard
    case .proxy: EmbeddedScenarios.proxy
    case .proxyPassword: EmbeddedScenarios.proxyPassword
    case .proxyTLS: EmbeddedScenarios.proxyTLS
    case .loadCancelledUnreplaced: EmbeddedScenarios.loadCancelledUnreplaced
    case .connectionDropped: EmbeddedScenarios.connectionDropped
    case .webAuthn: EmbeddedScenarios.webAuthn
    case .proxyPasswordDialog: EmbeddedScenarios.proxyPasswordDialog
    case .isolatedSettings: EmbeddedScenarios.isolatedSettings
    }
}
