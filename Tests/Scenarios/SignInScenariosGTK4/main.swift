// The sign-in scenarios that run on GTK 4 too (SignInScenarios is GTK 3's program): the proxy and
// security key scenarios' files, linked here, built with WebKitGTK 6.0. Any other scenario reports so.
import BuiltInWebviewProvidersGTK4
import CGLib
import CWebKitGTK4
import Foundation
import ScenarioSupport
import WebviewHost

WebviewProviderRegistry.registerBuiltInProviders()

ScenarioHost.main(SignInScenario.self, initializeToolkit: { gtk_init_check() != 0 ? UnsafeMutableRawPointer(gdk_display_get_default()) : nil }) { name in
    switch name {
    // A sign-in, a renewal, a sign-out and a device code through the desktop's proxy (issue 33).
    // arguments: where ("window", "view"), the client id, the device client's id.
    case .throughProxy: { arguments in
        await proxyScenario(where: arguments[0], clientID: arguments[1], deviceClientID: arguments[2])
    }
    // A security key at Glewlwyd (issue 42): `register|sign-in <client id> [scope...]`.
    case .securityKey: { arguments in
        await securityKeyScenario(mode: arguments[0], clientID: arguments[1], extraScopes: Array(arguments.dropFirst(2)))
    }
    default: { _ in ScenarioReport(error: "\(name.rawValue) runs in SignInScenarios (GTK 3) only") }
    }
}
