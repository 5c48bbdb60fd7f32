// The README's GTK 4 start-up, from the products only (a process of its own: a process loads one
// toolkit). It runs without a display: the application is made and the providers registered,
// but never run.
import BuiltInWebviewProvidersGTK4
import Foundation
import GLibSupport
import WebviewHostGTK4

let app = gtk_application_new("com.example.App", G_APPLICATION_DEFAULT_FLAGS)!
MainLoopBridge.install()
WebviewProviderRegistry.registerBuiltInProviders()
// "activate": build the window; sign in with WebviewParameters(parentWindow: WindowHandle(window)).
if CommandLine.arguments.contains("--run") {
    exit(g_application_run(wvh_application(app), 0, nil))
}

var failures: [String] = []
let ids = WebviewProviderRegistry.providers.map(\.id.rawValue).sorted()
if ids != ["embedded", "system-browser"] { failures.append("registered providers: \(ids)") }
if ToolkitIntegration.current?.name != "GTK 4" { failures.append("toolkit: \(ToolkitIntegration.current?.name ?? "none")") }
g_object_unref(UnsafeMutableRawPointer(app))
print(failures.isEmpty ? "GTK 4 start-up: OK" : "GTK 4 start-up FAILED: \(failures)")
exit(failures.isEmpty ? 0 : 1)
