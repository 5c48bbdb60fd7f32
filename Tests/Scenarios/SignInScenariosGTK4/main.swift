// The sign-in scenarios that run on GTK 4 too (SignInScenarios is GTK 3's program): the same
// files, linked here, built with WebKitGTK 6.0. A scenario not linked here reports so.
import BuiltInWebviewProvidersGTK4
import CGLib
import CWebKitGTK4
import Foundation
import ScenarioSupport
import WebviewHost

WebviewProviderRegistry.registerBuiltInProviders()

ScenarioHost.main(SignInScenario.self, initializeToolkit: { gtk_init_check() != 0 ? UnsafeMutableRawPointer(gdk_display_get_default()) : nil }) { name in
    switch name {
    // arguments: client id, then the passwords to type in turn (comma-separated).
    case .embeddedWindow: { arguments in
        let passwords = arguments.dropFirst().first.map { $0.split(separator: ",").map(String.init) } ?? ["alice-password"]
        let driver = PageDriver(script: autopilotScript(username: "alice", passwords: passwords))
        return await signIn(
            clientID: arguments.first ?? "webviewhost-tests", redirect: "http://127.0.0.1:53685/embedded-callback",
            webview: WebviewParameters(webviewType: .embedded, timeout: .seconds(60)), driver: driver)
    }
    // A sign-in, a renewal, a sign-out and a device code through the desktop's proxy (issue 33).
    // arguments: where ("window", "view"), the client id, the device client's id.
    case .throughProxy: { arguments in
        await proxyScenario(where: arguments[0], clientID: arguments[1], deviceClientID: arguments[2])
    }
    default: { _ in ScenarioReport(error: "\(name.rawValue) runs in SignInScenarios (GTK 3) only") }
    }
}
