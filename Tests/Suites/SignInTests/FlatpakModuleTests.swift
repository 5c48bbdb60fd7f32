import Foundation
import ScenarioSupport
import Testing

/// The GObject layer's Flatpak module (`Examples/Flatpak/webviewhost-gobject.yml`) built for an app
/// as flatpak-builder would build it, and the app run in the sandbox: what the module installed
/// under /app is all the app has of WebviewHost and of Swift.
extension GlewlwydSignInTests {
    /// `Tests/Fixtures/Flatpak/io.github.webviewhost.GObjectModuleTest.yml`: the module listed by
    /// file name, then C, Vala and Python programs on it; built by `sandbox.sh build`
    /// (flatpak-builder's steps with `flatpak build-init`, `flatpak build`, `flatpak build-finish`)
    /// on the tests' SDK with this machine's Swift toolchain mounted where the Swift SDK extension
    /// is (/usr/lib/sdk/swift6), in the debug configuration (the manifest's build-options env
    /// overridden: a whole release build took 233 s here where debug took 100).
    /// `WEBVIEW_HOST_TEST_FLATPAK_CONFIGURATION=release` builds the manifest's own configuration.
    ///
    /// Measured on two cores: the first build in a state folder makes the SDK and builds the whole
    /// package, about 2 minutes on a quiet machine, 5 beside two CPU hogs, 10 beside another
    /// checkout's test run and builds; later ones reuse the module's SwiftPM build kept in the state
    /// folder and take 30 s to 2 minutes (mostly `gir.sh`: the scanner and the Vala bindings).
    static let moduleApp = "io.github.webviewhost.GObjectModuleTest"

    @Test("Flatpak: the GObject module builds for an app on an SDK with the Swift extension; the app, sandboxed with no Swift in its runtime, loads WebviewHost from /app (Python, without GI_TYPELIB_PATH of its own) and signs in from C compiled with pkg-config and from Vala with the .vapi")
    func flatpakGObjectModule() async throws {
        let state = try await FlatpakSandbox.shared.setUp()
        let manifest = Checkout.fixture("Flatpak").appendingPathComponent("\(Self.moduleApp).yml").path
        let configuration = ProcessInfo.processInfo.environment["WEBVIEW_HOST_TEST_FLATPAK_CONFIGURATION"] ?? "debug"
        let started = ContinuousClock.now
        let built = try await ScriptRunner.run(
            "bash", [FlatpakSandbox.script, "build", state.path, manifest, "--env", "WEBVIEW_HOST_CONFIGURATION=\(configuration)"],
            timeout: Patience.scaled(.seconds(1800)) / .seconds(1))
        try #require(built.status == 0, "sandbox.sh build failed (\(built.status)):\n\(built.standardError.suffix(4000))")
        print("The GObject module's Flatpak app (\(configuration)) built in \(ContinuousClock.now - started) (\(built.standardError.split(separator: "\n").filter { $0.contains(" built in ") }.joined(separator: "; ")))")

        try await withFlatpakSession { session in
            var environment = session
            environment["SANDBOX_APP_ID"] = Self.moduleApp
            let launcher = ["bash", FlatpakSandbox.script, "run", state.path, "--"]
            // What the sandbox holds: no Swift toolchain nor Swift runtime outside /app; the
            // library finds its Swift runtime beside it; the runtime's GI_TYPELIB_PATH names /app.
            let probe = try await ScriptRunner.run(launcher[0], Array(launcher.dropFirst()) + ["/bin/sh", "-c", """
                echo "swift=$(command -v swift || echo none)"
                echo "sdk=$(ls -A /usr/lib/sdk/swift6 | head -1)"
                echo "usrSwiftCore=$(find /usr -name 'libswiftCore.so*' | head -1)"
                echo "typelibPath=$GI_TYPELIB_PATH"
                ldd /app/lib/libwebviewhost-gtk3.so | awk '$1 == "libswiftCore.so" || $1 == "libFoundation.so" { print $1 "=" $3 }'
                ls /app/lib/girepository-1.0 /app/lib/pkgconfig
                """], environment: environment, timeout: Patience.scaled(.seconds(60)) / .seconds(1))
            let facts = probe.standardOutput
            #expect(probe.status == 0, "\(probe.standardError.suffix(2000))")
            #expect(facts.contains("swift=none\n"), "\(facts)")
            #expect(facts.contains("sdk=\n"), "the extension is mounted only while building: \(facts)")
            #expect(facts.contains("usrSwiftCore=\n"), "\(facts)")
            #expect(facts.contains("typelibPath=/app/lib/girepository-1.0\n"), "\(facts)")
            #expect(facts.contains("libswiftCore.so=/app/lib/"), "\(facts)")
            #expect(facts.contains("libFoundation.so=/app/lib/"), "\(facts)")
            #expect(facts.contains("WebviewHost-3.0.typelib") && facts.contains("WebviewHost-4.0.typelib"), "\(facts)")
            #expect(facts.contains("webviewhost-gtk3.pc") && facts.contains("webviewhost-gtk4.pc"), "\(facts)")

            // Python: WebviewHost 3.0 from /app's typelib; an authority the Swift side refuses
            // comes back as the library's GError (the Swift runtime ran).
            let share = "/app/share/gobject-module-test"
            let python = try await sandboxedApp(launcher, ["/usr/bin/python3", "\(share)/GObject/signin.py", "bad-authority"], environment)
            let error = try #require(python["error"] as? [String: Any], "\(python)")
            #expect(error["domain"] as? String == "webview-host-error-quark")
            #expect(error["code"] as? Int == 5, "WVH_ERROR_INVALID_PARAMETERS")
            #expect(python["isWebviewHostError"] as? Bool == true)

            // GJS: WebviewHost 4.0 (libwebviewhost-gtk4.so) from /app, the same refusal.
            let gjs = try await sandboxedApp(launcher, ["/usr/bin/gjs", "-c", """
                imports.gi.versions.Gtk = '4.0'; imports.gi.versions.WebKit = '6.0'; imports.gi.versions.WebviewHost = '4.0';
                const { WebviewHost } = imports.gi;
                const report = {};
                try {
                    new WebviewHost.PublicClientApplication({ client_id: ARGV[0], authority: 'http://idp.example.com/oidc',
                        redirect_uri: 'http://127.0.0.1:23685/embedded-callback', token_cache: 'memory' }).init(null);
                    report.outcome = 'made';
                } catch (error) {
                    report.outcome = 'error';
                    report.isWebviewHostError = error.matches(WebviewHost.error_quark(), WebviewHost.Error.INVALID_PARAMETERS);
                }
                print(JSON.stringify(report));
                """], environment)
            #expect(gjs["outcome"] as? String == "error", "\(gjs)")
            #expect(gjs["isWebviewHostError"] as? Bool == true, "\(gjs)")

            // C, compiled in the build against the module's pkg-config file: the library's window
            // signs in at Glewlwyd, then silently, then signs out.
            let c = try await sandboxedApp(launcher, ["/app/bin/signin-c"], environment, autopilot: "\(share)/Glewlwyd/autopilot.js")
            Self.expectCSignIn(c)

            // Vala, compiled in the build against the module's GTK 4 .vapi: a sign-in on another
            // device, the code shown by the app and approved at Glewlwyd.
            let approve = ["/usr/bin/python3", "\(share)/Glewlwyd/approve_device.py", server.baseURL, server.username, server.password]
            let vala = try await sandboxedApp(
                launcher, ["/app/bin/devicecode-vala", server.deviceClientID, server.issuer.absoluteString] + approve, environment,
                credentials: false)
            #expect(vala["outcome"] as? String == "success", "\(vala)")
            #expect(vala["username"] as? String == server.userEmail)
            #expect(vala["hasRefreshToken"] as? Bool == true)
        }
    }

    /// Runs `command` in the app's sandbox, with the suite's credentials unless told not to (and the
    /// autopilot's path for the C program), and returns the JSON it printed last.
    private func sandboxedApp(
        _ launcher: [String], _ command: [String], _ environment: [String: String], autopilot: String? = nil, credentials: Bool = true
    ) async throws -> [String: Any] {
        let arguments = command + (credentials ? self.credentials : []) + (autopilot.map { [$0] } ?? [])
        let run = try await ScriptRunner.run(
            launcher[0], Array(launcher.dropFirst()) + arguments, environment: environment, timeout: Patience.scaled(.seconds(240)) / .seconds(1))
        let line = run.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        let report = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return try #require(report, "\(command.first ?? "") printed no report (exit \(run.status)):\n\(run.standardError.suffix(3000))")
    }
}
