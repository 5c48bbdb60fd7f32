import Foundation
import ScenarioSupport
import Synchronization
import Testing

/// Issue 34: the GObject layer (libwebviewhost-gtk3 and -gtk4 and their introspection data,
/// WebviewHost-3.0 and -4.0) from Python (PyGObject, GTK 3: `Tests/Fixtures/GObject/signin.py`)
/// and GJS (GTK 4: `signin.js`), apps written as the README tells one to, signing in at the
/// suite's Glewlwyd server for real.
extension GlewlwydSignInTests {
    /// The library, GIR and typelib the tests use: `Tools/gobject/gir.sh` over the library
    /// `swift build --build-tests` made, once per test process.
    static let gobjectLayer = Mutex<Task<URL, any Error>?>(nil)

    static func preparedGObjectLayer() async throws -> URL {
        let task = gobjectLayer.withLock { task in
            if let task { return task }
            let made = Task { () throws -> URL in
                let out = FileManager.default.temporaryDirectory.appendingPathComponent("webviewhost-gobject-\(getpid())")
                let script = Checkout.root.appendingPathComponent("Tools/gobject/gir.sh").path
                for toolkit in ["gtk3", "gtk4"] {
                    let run = try await ScriptRunner.run(script, [ScenarioRunner.productsDirectory.path, out.path, toolkit], timeout: 180)
                    guard run.status == 0 else {
                        throw GlewlwydError("Tools/gobject/gir.sh \(toolkit) failed (\(run.status)):\n\(run.standardError)")
                    }
                }
                return out
            }
            task = made
            return made
        }
        return try await task.value
    }

    /// Runs signin.py `mode` as the app and returns what it printed.
    func pythonApp(_ mode: String) async throws -> [String: Any] {
        try await gobjectApp("/usr/bin/python3", "signin.py", [mode])
    }

    /// Runs `interpreter` on the fixture `script` with `arguments`, then the client ID, issuer,
    /// username and password, on a desktop of its own; returns the JSON it printed last.
    func gobjectApp(_ interpreter: String, _ script: String, _ arguments: [String]) async throws -> [String: Any] {
        let layer = try await Self.preparedGObjectLayer()
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        var environment = desktop.environment
        environment["GI_TYPELIB_PATH"] = layer.path
        environment["LD_LIBRARY_PATH"] = layer.path
        let path = Checkout.fixture("GObject").appendingPathComponent(script).path
        let run = try await ScriptRunner.run(
            interpreter, [path] + arguments + [server.clientID, server.issuer.absoluteString, server.username, server.password],
            environment: environment, timeout: 200)
        let line = run.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        let report = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return try #require(report, "\(script) \(arguments) printed no report (exit \(run.status)):\n\(run.standardError.suffix(3000))")
    }

    @Test("GJS, GTK 4: the library's window, the async calls promisified: verified tokens, then a silent renewal")
    func gjsSignsInInTheLibrarysWindow() async throws {
        let report = try await gobjectApp("/usr/bin/gjs", "signin.js", [])
        #expect(report["outcome"] as? String == "success", "\(report)")
        #expect(report["username"] as? String == server.userEmail)
        #expect(report["hasRefreshToken"] as? Bool == true)
        #expect(report["viewTitle"] as? String == "Sign in to the GJS app", "the page showed in the library's GTK 4 window, titled as asked")
        let signals = report["signals"] as? [String] ?? []
        #expect(signals.first == "did-start-load" && signals.last == "did-complete", "\(signals)")
        #expect(report["silentDiffers"] as? Bool == true)
    }

    @Test("Python: the app's own WebKit2.WebView passed in, the signals in order, verified tokens, then a silent renewal")
    func pythonSignsInInItsOwnView() async throws {
        let report = try await pythonApp("custom-view")
        #expect(report["outcome"] as? String == "success", "\(report)")
        #expect(report["username"] as? String == server.userEmail)
        #expect((report["subject"] as? String)?.isEmpty == false)
        #expect(Set(report["scopes"] as? [String] ?? []) == ["openid", "profile", "email", "offline_access"])
        #expect(report["hasRefreshToken"] as? Bool == true)
        let signals = report["signals"] as? [String] ?? []
        #expect(signals.first == "did-start-load" && signals.last == "did-complete", "\(signals)")
        #expect(signals.contains("did-finish-load") && !signals.contains("did-fail"), "\(signals)")
        #expect(report["callbackHasCode"] as? Bool == true)
        #expect(report["viewIsTheApps"] as? Bool == true, "each load's webview argument is the app's view")
        #expect(report["viewURIAfter"] as? String == "", "the view is the app's again, with no page of the sign-in")
        let silent = try #require(report["silent"] as? [String: Any], "\(report)")
        #expect(silent["differs"] as? Bool == true, "forced renewal: a new access token")
        #expect(silent["subject"] as? String == report["subject"] as? String)
    }

    @Test("Python: cancelling the Gio.Cancellable ends the sign-in at once with G_IO_ERROR_CANCELLED; did-fail fires; no window is left")
    func pythonCancels() async throws {
        let started = ContinuousClock.now
        let report = try await pythonApp("cancel")
        #expect(report["outcome"] as? String == "error", "\(report)")
        #expect(report["isCancelled"] as? Bool == true, "\(report["error"] ?? "")")
        #expect(report["cancelledOn"] != nil, "cancelled while a page of the sign-in showed")
        #expect((report["signals"] as? [String])?.last == "did-fail", "\(report["signals"] ?? "")")
        #expect(report["visibleWindows"] as? [String] == [], "the library's window is gone when the callback runs")
        #expect(ContinuousClock.now - started < .seconds(100), "not at the 120 s timeout")
    }

    @Test("Python: a configuration the library refuses is a GLib.Error of WebviewHost's domain and code")
    func pythonSeesTheErrorDomain() async throws {
        let report = try await pythonApp("bad-authority")
        let error = try #require(report["error"] as? [String: Any], "\(report)")
        #expect(error["domain"] as? String == "webview-host-error-quark")
        #expect(error["code"] as? Int == 5, "WVH_ERROR_INVALID_PARAMETERS")
        #expect((error["message"] as? String)?.contains("must be an https URL") == true, "\(error)")
        #expect(report["isWebviewHostError"] as? Bool == true)
    }
}
