import Foundation
import ScenarioSupport
import Testing

/// Every sign-in path inside a real Flatpak sandbox (issue 24): `flatpak run` of a test app with
/// the least permissions a sign-in needs (`--share=network`, `--share=ipc`, `--socket=wayland`,
/// `--socket=fallback-x11`; no `--talk-name=org.freedesktop.secrets`), on a runtime made from
/// this machine's own libraries, with Debian's real xdg-desktop-portal, its GTK backend and
/// gnome-keyring's Secret portal on a private session bus (`Tests/Fixtures/Flatpak/sandbox.sh`).
/// The scenario programs run inside the sandbox; the person's browser (the Glewlwyd sign-in
/// script, the host's default http handler) runs outside, started by the portal.
extension GlewlwydSignInTests {
    /// The sandbox's state folder, set up once per test process (about 30 s).
    actor FlatpakSandbox {
        static let shared = FlatpakSandbox()
        static let script = Checkout.fixture("Flatpak").appendingPathComponent("sandbox.sh").path
        /// `WEBVIEW_HOST_TEST_FLATPAK_STATE` names another one (two checkouts testing at once).
        let state = URL(fileURLWithPath: ProcessInfo.processInfo.environment["WEBVIEW_HOST_TEST_FLATPAK_STATE"]
            ?? "/tmp/webviewhost-flatpak-\(getuid())")
        private var isSetUp = false

        func setUp() async throws -> URL {
            if !isSetUp {
                let output = try await ScriptRunner.run("bash", [Self.script, "setup", state.path, Checkout.root.path], timeout: 600)
                guard output.status == 0 else { throw GlewlwydError("sandbox.sh setup failed: \(output.standardError.suffix(3000))") }
                isSetUp = true
            }
            return state
        }
    }

    /// A session (private bus, portals, keyring) around `body`, with the Glewlwyd sign-in script
    /// as the host's default browser; `body` gets the session's environment.
    func withFlatpakSession<T>(_ body: ([String: String]) async throws -> T) async throws -> T {
        let state = try await FlatpakSandbox.shared.setUp()
        let started = try await ScriptRunner.run("bash", [FlatpakSandbox.script, "start", state.path], timeout: 120)
        let outcome: Result<T, any Error>
        do {
            guard started.status == 0 else { throw GlewlwydError("sandbox.sh start failed: \(started.standardError.suffix(3000))") }
            outcome = .success(try await inSession(started.standardOutput, body))
        } catch {
            outcome = .failure(error)
        }
        _ = try? await ScriptRunner.run("bash", [FlatpakSandbox.script, "stop", state.path], timeout: 60)
        return try outcome.get()
    }

    private func inSession<T>(_ printed: String, _ body: ([String: String]) async throws -> T) async throws -> T {
        var environment: [String: String] = [:]
        for line in printed.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        let applications = URL(fileURLWithPath: environment["XDG_DATA_HOME"]!).appendingPathComponent("applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        try Data("""
            [Desktop Entry]
            Type=Application
            Name=Sign-in browser
            Exec=python3 \(GlewlwydServer.browserScript.path) %u
            MimeType=x-scheme-handler/http;x-scheme-handler/https;text/html;
            NoDisplay=true

            """.utf8).write(to: applications.appendingPathComponent("signin-browser.desktop"))
        try Data("""
            [Default Applications]
            x-scheme-handler/http=signin-browser.desktop
            x-scheme-handler/https=signin-browser.desktop
            text/html=signin-browser.desktop

            """.utf8).write(to: URL(fileURLWithPath: environment["XDG_CONFIG_HOME"]!).appendingPathComponent("mimeapps.list"))
        environment["ISSUER"] = server.issuer.absoluteString
        return try await body(environment)
    }

    /// A scenario program inside the sandbox (`flatpak run` options first).
    func sandboxed<Name: ScenarioName>(
        _ scenario: Name, in program: String? = nil, _ arguments: [String], environment: [String: String], options: [String] = []
    ) async throws -> ScenarioReport {
        let state = try await FlatpakSandbox.shared.setUp()
        return try await ScenarioRunner.run(
            scenario, in: program, arguments: arguments, environment: environment, timeout: .seconds(110),
            launcher: ["bash", FlatpakSandbox.script, "run", state.path] + options + ["--"])
    }

    @Test("Flatpak: the person's browser through the OpenURI portal (the app's window as parent), the loopback redirect, tokens kept in the Secret portal's file and read by the next run")
    func flatpakBrowserSignInAndKeyringFile() async throws {
        try await withFlatpakSession { session in
            var environment = session
            environment["SIGNIN_TOKEN_STORE"] = "secret"
            environment["SIGNIN_PARENT_WINDOW"] = "1"
            let report = try await sandboxed(SignInScenario.systemBrowser, [server.clientID], environment: environment)
            expectAlice(report)
            #expect(report[.notifications] == ["DidStartLoad", "DidFinishLoad", "DidComplete"])
            let state = try await FlatpakSandbox.shared.setUp()
            // The portal opened the browser, for the app's window (X11: its id).
            let calls = (try? String(contentsOf: state.appendingPathComponent("openuri.log"), encoding: .utf8)) ?? ""
            #expect(calls.contains("member=OpenURI"), "the OpenURI portal was called: \(calls.prefix(2000))")
            #expect(calls.range(of: #"string "x11:[0-9a-f]+""#, options: .regularExpression) != nil, "parent_window: \(calls.prefix(2000))")
            // The tokens are in the app's own keyring file, encrypted with the portal's key...
            let keyring = URL(fileURLWithPath: session["HOME"]!)
                .appendingPathComponent(".var/app/io.github.webviewhost.SandboxTest/data/keyrings/default.keyring")
            #expect(FileManager.default.fileExists(atPath: keyring.path), "\(keyring.path)")
            // ...not in the host keyring's collections (which hold only the portal's key for the app).
            let search = try await ScriptRunner.run(
                "gdbus", ["call", "--session", "-d", "org.freedesktop.secrets", "-o", "/org/freedesktop/secrets", "-m",
                    "org.freedesktop.Secret.Service.SearchItems", "{'client_id': '\(server.clientID)'}"],
                environment: session, timeout: 20)
            #expect(search.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "(@ao [], @ao [])", "host keyring: \(search.standardOutput)")
            // The app restarted: the account is read back from the file and renewed silently.
            let later = try await sandboxed(SignInScenario.silentFromStore, [server.clientID], environment: environment)
            #expect(later[.outcome] == "success", "\(later[.message] ?? "")")
            #expect(later[.subject] == report[.subject])
        }
    }

    /// `late-portal-subscribe.c`, built once into the checkout's `.build` (the sandbox reads the
    /// checkout): preloaded, it makes libsecret subscribe late to the Secret portal's answer.
    static let latePortalSubscribe = Task { () throws -> String in
        let source = Checkout.fixture("Flatpak").appendingPathComponent("late-portal-subscribe.c").path
        let folder = Checkout.root.appendingPathComponent(".build/test-fixtures")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let library = folder.appendingPathComponent("late-portal-subscribe.so").path
        let built = try await ScriptRunner.run(
            "bash", ["-c", "clang -shared -fPIC -o \"$2\" \"$1\" $(pkg-config --cflags --libs gio-2.0) -ldl", "build", source, library],
            timeout: 120)
        guard built.status == 0 else { throw GlewlwydError("building \(source): \(built.standardError.suffix(2000))") }
        return library
    }

    @Test("Flatpak on a busy machine: libsecret drops the Secret portal's answer (it subscribed late), the library asks again and the sign-in keeps its tokens; an answer dropped every time ends at the store's time limit, not in a hang")
    func flatpakSecretPortalAnswerDropped() async throws {
        let preload = try await Self.latePortalSubscribe.value
        try await withFlatpakSession { session in
            var environment = session
            environment["SIGNIN_TOKEN_STORE"] = "secret"
            environment["SANDBOX_LD_PRELOAD"] = preload
            environment["WVH_LATE_PORTAL_SUBSCRIBE"] = "1500:1"  // the first answer only
            let report = try await sandboxed(SignInScenario.systemBrowser, [server.clientID], environment: environment)
            expectAlice(report)
            let state = try await FlatpakSandbox.shared.setUp()
            let calls = (try? String(contentsOf: state.appendingPathComponent("secret-portal.log"), encoding: .utf8)) ?? ""
            let requests = calls.components(separatedBy: "member=RetrieveSecret").count - 1
            #expect(requests == 2, "the dropped answer, then the one libsecret used: \(calls.prefix(3000))")
            let keyring = URL(fileURLWithPath: session["HOME"]!)
                .appendingPathComponent(".var/app/io.github.webviewhost.SandboxTest/data/keyrings/default.keyring")
            #expect(FileManager.default.fileExists(atPath: keyring.path), "the tokens were kept: \(keyring.path)")

            // Every answer dropped (libsecret subscribes a minute late, each time): the store gives
            // up at its time limit (12 s here), and the app's call ends with the store's error, which says so.
            // Before, the time limit cancelled libsecret's request, which deadlocks libsecret 0.20,
            // and every later call of the store waited behind it for ever.
            environment["WVH_LATE_PORTAL_SUBSCRIBE"] = "60000:-1"
            environment["SIGNIN_TOKEN_STORE_TIMEOUT"] = "12"
            let later = try await sandboxed(SignInScenario.silentFromStore, [server.clientID], environment: environment)
            #expect(later[.outcome] == "providerUnavailable", "\(later[.outcome] ?? "") \(later[.message] ?? "")")
            #expect(later[.message]?.contains("within 12 seconds: the Secret portal answered all") == true, "\(later[.message] ?? "")")
        }
    }

    @Test("Flatpak on Wayland: the portal gets the app's window as wayland:<handle>, exported with xdg-foreign (a headless Mutter)")
    func flatpakWaylandParent() async throws {
        try await withFlatpakSession { session in
            // Mutter's socket in the session's runtime folder, where flatpak run looks for it.
            let runtime = session["XDG_RUNTIME_DIR"]!
            let display = "wvh-mutter-\(getpid())"
            let mutter = try CleanSpawn(
                ["mutter", "--headless", "--wayland", "--no-x11", "--virtual-monitor", "1280x800", "--wayland-display=\(display)"],
                environment: ProcessInfo.processInfo.environment.merging(session) { $1 }.merging(["XDG_RUNTIME_DIR": runtime]) { $1 },
                outputFiles: ("/dev/null", "\(runtime)/mutter.log"), processGroup: true)
            defer {
                kill(-mutter.pid, SIGTERM)
                _ = mutter.waitForExit()
            }
            let socket = URL(fileURLWithPath: runtime).appendingPathComponent(display).path
            let deadline = ContinuousClock.now + Patience.scaled(.seconds(30))
            while !FileManager.default.fileExists(atPath: socket), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            try #require(FileManager.default.fileExists(atPath: socket), "mutter did not start")
            var environment = session
            environment["SIGNIN_PARENT_WINDOW"] = "1"
            environment["WAYLAND_DISPLAY"] = display
            environment["GDK_BACKEND"] = "wayland"
            environment["DISPLAY"] = ""
            let report = try await sandboxed(SignInScenario.systemBrowser, [server.clientID], environment: environment)
            #expect(report[.gdkDisplay] == "GdkWaylandDisplay")
            expectAlice(report)
            let state = try await FlatpakSandbox.shared.setUp()
            let calls = (try? String(contentsOf: state.appendingPathComponent("openuri.log"), encoding: .utf8)) ?? ""
            // The handle is xdg-foreign's random token, any printable characters, a quote included
            // (dbus-monitor prints it as is): the whole rest of the line.
            #expect(calls.range(of: #"(?m)string "wayland:.+"$"#, options: .regularExpression) != nil, "parent_window: \(calls.prefix(2000))")
        }
    }

    @Test("Flatpak: the embedded view signs in at Glewlwyd (GTK 3, WebKitGTK 4.1), and a GTK 4 view finishes its sign-in (WebKitGTK 6.0's own web process sandbox)")
    func flatpakEmbeddedSignIn() async throws {
        try await withFlatpakSession { session in
            let report = try await sandboxed(SignInScenario.embeddedWindow, [server.clientID], environment: session)
            expectAlice(report)
            let gtk4 = try await sandboxed(EmbeddedScenario.outcome, in: "EmbeddedScenariosGTK4", ["window", "success"], environment: session)
            #expect(gtk4[.outcome] == "success")
            #expect(gtk4[.terminalCount] == 1)
        }
    }

    @Test("Flatpak without --share=network: the sign-in fails at once, and says which manifest line to add")
    func flatpakWithoutNetwork() async throws {
        try await withFlatpakSession { session in
            let started = ContinuousClock.now
            let report = try await sandboxed(
                SignInScenario.systemBrowser, [server.clientID], environment: session, options: ["--unshare=network"])
            #expect(ContinuousClock.now - started < .seconds(30), "before any page, not at a timeout")
            #expect(report[.outcome] == "network")
            #expect(report[.message]?.contains("`--share=network`") == true, "\(report[.message] ?? "")")
            #expect(report[.notifications] == [], "no page was shown")
        }
    }

    @Test("Flatpak: help says the sandbox and the portals that answered; a custom scheme is checked in the exported desktop file")
    func flatpakHelpAndCustomScheme() async throws {
        try await withFlatpakSession { session in
            let help = try await sandboxed(SignInScenario.help, [], environment: session)
            let text = help[.message] ?? ""
            #expect(text.contains("Sandbox: Flatpak (app id io.github.webviewhost.SandboxTest; shares the network"), "\(text)")
            #expect(text.range(of: "portals: OpenURI [0-9]+, Secret [0-9]+", options: .regularExpression) != nil, "\(text)")
            let declared = try await sandboxed(
                SignInScenario.schemeRegistration, ["io.github.webviewhost.sandboxtest", "io.github.webviewhost.SandboxTest"], environment: session)
            #expect(declared[.outcome] == "success", "\(declared[.message] ?? "")")
            #expect(declared[.message] == "/app/share/applications/io.github.webviewhost.SandboxTest.desktop")
            let missing = try await sandboxed(
                SignInScenario.schemeRegistration, ["io.github.webviewhost.other", "io.github.webviewhost.SandboxTest"], environment: session)
            #expect(missing[.outcome] == "redirectListenerFailed")
            #expect(missing[.message]?.contains("MimeType=x-scheme-handler/io.github.webviewhost.other;") == true, "\(missing[.message] ?? "")")
            let state = try await FlatpakSandbox.shared.setUp()
            #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: session["HOME"]!)
                .appendingPathComponent(".var/app/io.github.webviewhost.SandboxTest/data/applications").path), "nothing written where the host never reads")
            _ = state
        }
    }
}
