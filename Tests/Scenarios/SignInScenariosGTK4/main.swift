// The sign-in scenario that runs on GTK 4 too (SignInScenarios is GTK 3's program): the proxy
// scenario's files, linked here, built with WebKitGTK 6.0. Any other scenario reports so.
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
    default: { _ in ScenarioReport(error: "\(name.rawValue) runs in SignInScenarios (GTK 3) only") }
    }
}
