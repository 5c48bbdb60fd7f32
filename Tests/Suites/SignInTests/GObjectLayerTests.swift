import Foundation
import ScenarioSupport
import Synchronization
import Testing
import WebviewHostTestKit

/// Issue 34: the GObject layer (libwebviewhost-gtk3 and -gtk4 and their introspection data,
/// WebviewHost-3.0 and -4.0) from Python (PyGObject, GTK 3: `Tests/Fixtures/GObject/signin.py`)
/// and GJS (GTK 4: `signin.js`), apps written as the README tells one to, signing in at the
/// suite's Glewlwyd server for real; and the lower level, `WvhWebAuthSession` (`websession.py`,
/// `websession.js`), on an authorization page the app serves itself on 127.0.0.1.
extension GlewlwydSignInTests {
    /// The GObject layer installed into a prefix of its own, as an app's machine gets it:
    /// `Tools/gobject/gir.sh` over the libraries `swift build --build-tests` made, once per test
    /// process, for both toolkits.
    static let gobjectLayer = Mutex<Task<URL, any Error>?>(nil)

    static func preparedGObjectLayer() async throws -> URL {
        let task = gobjectLayer.withLock { task in
            if let task { return task }
            let made = Task { () throws -> URL in
                let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("webviewhost-gobject-\(getpid())")
                let script = Checkout.root.appendingPathComponent("Tools/gobject/gir.sh").path
                for toolkit in ["gtk3", "gtk4"] {
                    let run = try await ScriptRunner.run(script, [ScenarioRunner.productsDirectory.path, prefix.path, toolkit], timeout: 240)
                    guard run.status == 0 else {
                        throw GlewlwydError("Tools/gobject/gir.sh \(toolkit) failed (\(run.status)):\n\(run.standardError)")
                    }
                }
                return prefix
            }
            task = made
            return made
        }
        return try await task.value
    }

    /// Runs signin.py `mode` as the app and returns what it printed.
    func pythonApp(_ mode: String) async throws -> [String: Any] {
        try await gobjectApp(["/usr/bin/python3", fixture("signin.py"), mode] + credentials)
    }

    var credentials: [String] { [server.clientID, server.issuer.absoluteString, server.username, server.password] }

    /// The person on their phone: approves a device code (the code is appended) as alice.
    var deviceApproval: [String] {
        ["python3", GlewlwydServer.scriptsDirectory.appendingPathComponent("approve_device.py").path, server.baseURL, server.username, server.password]
    }

    func fixture(_ name: String) -> String { Checkout.fixture("GObject").appendingPathComponent(name).path }

    /// signin.py's and signin.js's `resultSurface`: every getter of the result and its account,
    /// read after the collector ran, equal to its property and filled in; the ID token a JWT; the
    /// expiry ahead; the issuer the server's.
    func expectResultSurface(_ report: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        let surface = report["resultSurface"] as? [String: Any] ?? [:]
        #expect(surface["differing"] as? [String] == [], "each getter is its property: \(surface)", sourceLocation: sourceLocation)
        #expect(surface["empty"] as? [String] == [], "each is filled in: \(surface)", sourceLocation: sourceLocation)
        #expect(surface["idTokenParts"] as? Int == 3, "\(surface)", sourceLocation: sourceLocation)
        #expect(surface["expiresInFuture"] as? Bool == true, "\(surface)", sourceLocation: sourceLocation)
        #expect(surface["issuer"] as? String == server.issuer.absoluteString, "\(surface)", sourceLocation: sourceLocation)
    }

    /// Runs `command` (an app) on a desktop and an X server of its own (an app's accessibility
    /// bus, announced on the X display, must not outlive its desktop for the next one), with the
    /// installed layer's typelibs on GI_TYPELIB_PATH (the typelibs name the library by its
    /// installed path: no LD_LIBRARY_PATH); returns the JSON it printed last. Python and GJS apps
    /// run under `G_DEBUG=fatal-criticals`: a wrong annotation (a double free, a reference the
    /// binding does not own) shows as a critical in the bindings, and aborts the app there.
    /// `browserCommand`: the desktop's default browser (`TestDesktop`), none by default.
    func gobjectApp(_ command: [String], environment extra: [String: String] = [:], browserCommand: String? = nil) async throws -> [String: Any] {
        let prefix = try await Self.preparedGObjectLayer()
        let desktop = try TestDesktop(browserCommand: browserCommand)
        defer { desktop.remove() }
        let run = try await PrivateXServer.with { display in
            var environment = display.environment(from: desktop.environment)
            environment["GI_TYPELIB_PATH"] = prefix.appendingPathComponent("lib/girepository-1.0").path
            environment.merge(extra) { _, given in given }
            if ["/usr/bin/python3", "/usr/bin/gjs"].contains(command[0]) { environment["G_DEBUG"] = "fatal-criticals" }
            // Generous: CI runs other suites beside these, and an app signs in, renews and signs out.
            return try await ScriptRunner.run(command[0], Array(command.dropFirst()), environment: environment, timeout: 420)
        }
        let line = run.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        let report = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        let stacks = run.stacks.map { "\nStopped at its time limit; its threads' stacks:\n\($0)" } ?? ""
        return try #require(report, "\(command.prefix(3)) printed no report (exit \(run.status)):\n\(run.standardError.suffix(3000))\(stacks)")
    }

    /// Compiles `source` against the installed layer (pkg-config for C, valac with the .vapi for
    /// Vala) and returns the program's path.
    func compiled(_ source: String, with compiler: [String]) async throws -> String {
        let prefix = try await Self.preparedGObjectLayer()
        let program = prefix.appendingPathComponent("bin/\((source as NSString).deletingPathExtension)").path
        try FileManager.default.createDirectory(atPath: (program as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let command = compiler.map {
            $0.replacingOccurrences(of: "SOURCE", with: fixture(source)).replacingOccurrences(of: "PROGRAM", with: program)
                .replacingOccurrences(of: "PREFIX", with: prefix.path)
        }
        let run = try await ScriptRunner.run(
            "/bin/sh", ["-c", command.joined(separator: " ")],
            environment: ["PKG_CONFIG_PATH": prefix.appendingPathComponent("lib/pkgconfig").path], timeout: 240)
        try #require(run.status == 0, "compiling \(source) failed:\n\(run.standardError.suffix(3000))")
        return program
    }

    static let cCompiler = ["cc", "-Wall", "-Werror", "-o", "PROGRAM", "SOURCE", "$(pkg-config --cflags --libs webviewhost-gtk3)"]

    @Test("C, GTK 3: the library's window, then silent, then sign-out; forbidden arguments are criticals, not crashes")
    func cSignsInRenewsAndSignsOut() async throws {
        let program = try await compiled("signin.c", with: Self.cCompiler)
        let report = try await gobjectApp([program] + credentials + [Checkout.fixture("Glewlwyd").appendingPathComponent("autopilot.js").path])
        Self.expectCSignIn(report)
    }

    static func expectCSignIn(_ report: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(report["outcome"] as? String == "success", "\(report)", sourceLocation: sourceLocation)
        let signals = report["signals"] as? [String] ?? []
        #expect(signals.first == "did-start-load" && signals.dropLast().last == "did-complete", "\(signals)", sourceLocation: sourceLocation)
        #expect(report["silentDiffers"] as? Bool == true, sourceLocation: sourceLocation)
        #expect(report["signedOut"] as? Bool == true, "the account's tokens were removed", sourceLocation: sourceLocation)
        #expect(report["accountsAfter"] as? Int == 0, sourceLocation: sourceLocation)
        #expect(report["criticals"] as? Int == 10, "each forbidden argument is one critical", sourceLocation: sourceLocation)
    }

    @Test("C, GTK 3: the same program runs where the Swift toolchain cannot be seen (bubblewrap hides its folder)")
    func cRunsWithoutTheToolchain() async throws {
        let program = try await compiled("signin.c", with: Self.cCompiler)
        let swift = try #require(try await ScriptRunner.run("/bin/sh", ["-c", "command -v swift"], timeout: 10).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines).nilIfEmpty, "no swift on PATH")
        // /opt/swift/usr/bin/swift: the toolchain's folder is /opt/swift/usr.
        let toolchain = URL(fileURLWithPath: swift).deletingLastPathComponent().deletingLastPathComponent().path
        let inside = "test ! -e '\(swift)' || exit 97; exec \"$0\" \"$@\""
        let report = try await gobjectApp(
            ["/usr/bin/bwrap", "--dev-bind", "/", "/", "--tmpfs", toolchain, "/bin/sh", "-c", inside, program] + credentials
                + [Checkout.fixture("Glewlwyd").appendingPathComponent("autopilot.js").path])
        Self.expectCSignIn(report)
    }

    @Test("Vala, GTK 4: a sign-in on another device, the code shown by the app itself and approved at Glewlwyd")
    func valaDeviceCode() async throws {
        let program = try await compiled(
            "devicecode.vala",
            with: ["valac", "--vapidir=PREFIX/share/vala/vapi", "--pkg", "webviewhost-gtk4", "--pkg", "json-glib-1.0", "-X", "-w", "-o", "PROGRAM", "SOURCE"])
        let report = try await gobjectApp([program, server.deviceClientID, server.issuer.absoluteString] + deviceApproval)
        #expect(report["outcome"] as? String == "success", "\(report)")
        #expect((report["userCode"] as? String)?.isEmpty == false)
        #expect((report["verificationUri"] as? String)?.hasPrefix(server.baseURL) == true, "\(report["verificationUri"] ?? "")")
        #expect(report["instructionsMentionCode"] as? Bool == true)
        #expect(report["username"] as? String == server.userEmail)
        #expect(report["hasRefreshToken"] as? Bool == true)
    }

    @Test("Python and GJS, fatal criticals: a sign-in on another device, the code shown by the app, the challenge kept past its signal and read again after the sign-in")
    func deviceCodeFromPythonAndGJS() async throws {
        for interpreter in ["/usr/bin/python3", "/usr/bin/gjs"] {
            let script = fixture(interpreter.hasSuffix("gjs") ? "devicecode.js" : "devicecode.py")
            let report = try await gobjectApp([interpreter, script, server.deviceClientID, server.issuer.absoluteString] + deviceApproval)
            #expect(report["outcome"] as? String == "success", "\(interpreter): \(report)")
            #expect(report["username"] as? String == server.userEmail, "\(interpreter): \(report)")
            #expect(report["hasRefreshToken"] as? Bool == true, "\(interpreter): \(report)")
            for key in ["challenge", "challengeAfter"] {
                let challenge = report[key] as? [String: Any] ?? [:]
                #expect(challenge["differing"] as? [String] == [], "\(interpreter) \(key): each getter is its property: \(challenge)")
                #expect((challenge["userCode"] as? String)?.isEmpty == false, "\(interpreter) \(key): \(challenge)")
                #expect((challenge["verificationUri"] as? String)?.hasPrefix(server.baseURL) == true, "\(interpreter) \(key): \(challenge)")
                #expect(challenge["expiresInFuture"] as? Bool == true, "\(interpreter) \(key): \(challenge)")
                #expect(challenge["instructionsMentionCode"] as? Bool == true, "\(interpreter) \(key): \(challenge)")
            }
        }
    }

    @Test("GJS, GTK 4: the library's window, the async calls promisified: verified tokens, then a silent renewal")
    func gjsSignsInInTheLibrarysWindow() async throws {
        let report = try await gobjectApp(["/usr/bin/gjs", fixture("signin.js")] + credentials)
        #expect(report["outcome"] as? String == "success", "\(report)")
        #expect(report["username"] as? String == server.userEmail)
        #expect(report["hasRefreshToken"] as? Bool == true)
        #expect(report["viewTitle"] as? String == "Sign in to the GJS app", "the page showed in the library's GTK 4 window, titled as asked")
        let signals = report["signals"] as? [String] ?? []
        #expect(signals.first == "did-start-load" && signals.last == "did-complete", "\(signals)")
        #expect(report["silentDiffers"] as? Bool == true)
        expectResultSurface(report)
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
        expectResultSurface(report)
    }

    @Test("Python: a provider written in Python, registered through introspection, is chosen by the policy and signs in")
    func pythonProviderIsChosen() async throws {
        let report = try await gobjectApp(["/usr/bin/python3", fixture("provider.py")] + credentials)
        #expect(report["outcome"] as? String == "success", "\(report)")
        #expect(report["username"] as? String == server.userEmail)
        let calls = report["providerCalls"] as? [String] ?? []
        #expect(calls.contains("start") && calls.filter { $0 == "start" }.count == 1, "\(calls)")
        #expect(report["callsAtCallback"] as? [String] == calls, "\(report)")
        #expect((report["callsAtCallback"] as? [String])?.last == "dismiss", "dismissed once, before the app's callback")
        #expect(report["completeAccepted"] as? Bool == true)
        #expect(report["finishedAfterComplete"] as? Bool == true)
        #expect(report["sessionGettersAgree"] as? Bool == true, "get_authorization_url and get_redirect_uri give the properties: \(report)")
        let signals = report["signals"] as? [String] ?? []
        #expect(signals == ["did-start-load", "did-finish-load", "did-complete"], "the provider's reports, and no second outcome: \(signals)")
        #expect(report["unregistered"] as? Bool == true)
    }

    @Test("GJS, GTK 4, fatal criticals: a provider written in JavaScript is chosen by the policy and signs in; its session's methods and getters from JavaScript; dismissed once, before the app's callback")
    func gjsProviderIsChosen() async throws {
        let report = try await gobjectApp(["/usr/bin/gjs", fixture("provider.js")] + credentials)
        #expect(report["outcome"] as? String == "success", "\(report)")
        #expect(report["username"] as? String == server.userEmail)
        let calls = report["providerCalls"] as? [String] ?? []
        #expect(calls.filter { $0 == "start" }.count == 1 && calls.last == "dismiss", "\(calls)")
        #expect(report["callsAtCallback"] as? [String] == calls, "dismissed before the app's callback: \(report)")
        #expect(report["dismissedItsSession"] as? Bool == true, "dismiss got the session start got: \(report)")
        #expect(report["completeAccepted"] as? Bool == true && report["finishedAfterComplete"] as? Bool == true, "\(report)")
        #expect(report["finishedBeforeComplete"] as? Bool == false, "\(report)")
        #expect(report["sessionGettersAgree"] as? Bool == true, "\(report)")
        #expect(report["redirectURI"] as? String == "http://127.0.0.1:23685/embedded-callback", "\(report)")
        let signals = report["signals"] as? [String] ?? []
        #expect(signals == ["did-start-load", "did-finish-load", "did-complete"], "the provider's reports, and no second outcome: \(signals)")
        #expect(report["unregistered"] as? Bool == true)
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

    @Test("Python: the lower level, a WebAuthSession for the app's own authorization page: the URL at the redirect URI, its own signals in order")
    func pythonWebAuthSessionCompletes() async throws {
        let report = try await gobjectApp(["/usr/bin/python3", fixture("websession.py"), "complete"])
        #expect(report["outcome"] as? String == "success", "\(report)")
        let expected = "http://127.0.0.1:23686/session-callback?code=the-code&state=the-state"
        #expect(report["url"] as? String == expected, "\(report)")
        let signals = report["signals"] as? [String] ?? []
        #expect(signals.first == "did-start-load", "\(signals)")
        let firstFinish = try #require(signals.firstIndex(of: "did-finish-load"), "\(signals)")
        #expect(signals.firstIndex(of: "did-start-load")! < firstFinish, "\(signals)")
        #expect(signals.last == "did-complete" && signals.filter { $0 == "did-complete" }.count == 1, "once, last: \(signals)")
        #expect(!signals.contains("did-fail"), "\(signals)")
        #expect(report["completeURL"] as? String == expected)
        #expect((report["views"] as? [Bool])?.allSatisfy { $0 } == true, "each load's webview argument is the library's view")
        #expect(report["visibleWindows"] as? [String] == [], "the library's window is gone when the callback runs")
    }

    @Test("Python: security-keys on (the default) puts the Web Authentication API in the library's window when a key is reachable; off leaves it out (the page's call would go to the browser)")
    func pythonSecurityKeysSwitch() async throws {
        let key = try VirtualAuthenticator()
        defer { key.stop() }
        for (mode, api) in [("keys-on", "function"), ("keys-off", "undefined")] {
            let report = try await gobjectApp(
                ["/usr/bin/python3", fixture("websession.py"), mode], environment: ["WEBVIEWHOST_VIRTUAL_AUTHENTICATORS": key.socketPath])
            #expect(report["outcome"] as? String == "success", "\(mode): \(report)")
            #expect((report["url"] as? String)?.hasSuffix("&api=\(api)") == true, "\(mode): \(report)")
        }
    }

    @Test("Python: the lower level cancelled through its Gio.Cancellable (G_IO_ERROR_CANCELLED, no window left), with cancel() before its start; no redirect URI is an error")
    func pythonWebAuthSessionCancels() async throws {
        let started = ContinuousClock.now
        let report = try await gobjectApp(["/usr/bin/python3", fixture("websession.py"), "cancel"])
        #expect(report["outcome"] as? String == "error", "\(report)")
        #expect(report["isCancelled"] as? Bool == true, "\(report["error"] ?? "")")
        #expect((report["cancelledOn"] as? String)?.hasSuffix("/stay") == true, "cancelled while the page showed: \(report)")
        let signals = report["signals"] as? [String] ?? []
        #expect(signals.last == "did-fail" && signals.filter { $0 == "did-fail" }.count == 1, "\(signals)")
        #expect(!signals.contains("did-complete"), "\(signals)")
        #expect(report["visibleWindows"] as? [String] == [], "the library's window is gone when the callback runs")
        #expect(report["secondIsCanceled"] as? Bool == true, "cancel() before the start: WVH_ERROR_CANCELED: \(report)")
        let third = try #require(report["thirdError"] as? [String: Any], "no redirect URI: \(report)")
        #expect(third["domain"] as? String == "webview-host-error-quark" && third["code"] as? Int == 5, "WVH_ERROR_INVALID_PARAMETERS: \(third)")
        #expect(ContinuousClock.now - started < .seconds(100), "not at the 120 s timeout")
    }

    @Test("GJS, GTK 4: the lower level promisified, on a page a libsoup server of the script serves: the URL at the redirect URI, the signals")
    func gjsWebAuthSessionCompletes() async throws {
        let report = try await gobjectApp(["/usr/bin/gjs", fixture("websession.js")])
        #expect(report["outcome"] as? String == "success", "\(report)")
        #expect(report["url"] as? String == "http://127.0.0.1:23686/session-callback?code=the-code&state=the-state", "\(report)")
        let signals = report["signals"] as? [String] ?? []
        #expect(signals.first == "did-start-load" && signals.last == "did-complete", "\(signals)")
        #expect(signals.contains("did-finish-load") && signals.filter { $0 == "did-complete" }.count == 1, "\(signals)")
        #expect(report["viewIsWebKit"] as? Bool == true, "did-finish-load's webview is the library's WebKit.WebView")
    }

    @Test("Python: a configuration the library refuses is a GLib.Error of WebviewHost's domain and code")
    func pythonSeesTheErrorDomain() async throws {
        let report = try await pythonApp("bad-authority")
        let error = try #require(report["error"] as? [String: Any], "\(report)")
        #expect(error["domain"] as? String == "webview-host-error-quark")
        #expect(error["code"] as? Int == 5, "WVH_ERROR_INVALID_PARAMETERS")
        #expect((error["message"] as? String)?.contains("must be an https URL") == true, "\(error)")
        #expect(report["isWebviewHostError"] as? Bool == true)
        let proxy = try #require(report["proxyError"] as? [String: Any], "network-proxy ftp:// was refused: \(report)")
        #expect(proxy["domain"] as? String == "webview-host-error-quark")
        #expect(proxy["code"] as? Int == 5)
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
