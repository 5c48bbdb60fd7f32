import Foundation
import ScenarioSupport
import SystemBrowserProvider
import Testing
import TestTraits
import WebviewHost

/// Runs `gio` with `arguments` in `environment` (bounded: killed after 10 s) and returns its output.
func gio(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["timeout", "10", "gio"] + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

@Suite("Custom-scheme redirect", .serialized, .desktop)
struct CustomSchemeTests {
    @Test("End to end on a private session bus: the browser opens the URI, the second instance hands it over D-Bus")
    func endToEnd() async throws {
        let desktop = try TestBrowserDesktop(.registered)
        defer { desktop.remove() }
        let secondLog = desktop.root.appendingPathComponent("second-instance.log")
        var environment = desktop.environment
        environment["SCHEME_TEST_SECOND_LOG"] = secondLog.path
        let report = try await ScenarioRunner.run(
            SystemBrowserScenario.customScheme, environment: environment, timeout: .seconds(60),
            launcher: ["dbus-run-session", "--"])

        let callback = "com.example.webviewhost:/oauth2redirect?code=the-code&state=s-123"
        #expect(report[.outcome] == "success")
        #expect(report[.code] == "the-code")
        #expect(report[.state] == "s-123")
        #expect(report[.callbackURL] == callback)
        #expect(report[.preparedRedirectURI] == "com.example.webviewhost:/oauth2redirect")
        // Completed exactly once, by the one URI the open handler received.
        #expect(report[.notifications] == successNotifications)
        #expect(report[.openedURIs] == [callback])
        #expect(report[.handOverAfterEnd] == false)
        #expect(report[.connectedAfterDisconnect] == false)
        // The first instance is the primary one; connect(to:) added HANDLES_OPEN before registration.
        #expect(report[.firstInstanceIsRemote] == false)
        #expect(report[.handlesOpenAfterConnect] == true)
        // The browser really handed the URI to the desktop (gio open), not to the app directly.
        #expect(report[.browserFinalURL] == callback)
        #expect(report[.browserFinished] == true)
        // One second instance, started by GIO with the URI, handed it over (never became primary,
        // never emitted open itself) and exited 0 quickly.
        #expect(report[.secondInstanceCount] == 1)
        #expect(report[.secondInstanceURI] == callback)
        #expect(report[.secondInstanceIsRemote] == true)
        #expect(report[.secondInstanceOpenedHere] == 0)
        #expect(report[.secondInstanceStatus] == 0)
        let seconds = try #require(report[.secondInstanceSeconds])
        #expect(seconds >= 0 && seconds < 5)

        // The desktop entry declares the scheme, and GIO (another process) sees it as the default.
        let desktopFile = try #require(report[.desktopFile])
        #expect(desktopFile == desktop.root.appendingPathComponent("data/applications/org.webviewhost.SchemeTest.desktop").path)
        let entry = try String(contentsOfFile: desktopFile, encoding: .utf8)
        let lines = entry.split(separator: "\n").map(String.init)
        #expect(lines.contains("MimeType=x-scheme-handler/com.example.webviewhost;"))
        #expect(lines.contains("NoDisplay=true"))
        #expect(lines.contains { $0.hasPrefix("Exec=") && $0.hasSuffix("/SystemBrowserScenarios %u") })
        let mime = try gio(["mime", "x-scheme-handler/com.example.webviewhost"], environment: desktop.environment)
        #expect(mime.status == 0)
        #expect(
            mime.output.contains("x-scheme-handler/com.example.webviewhost”: org.webviewhost.SchemeTest.desktop"),
            "\(mime.output)")
    }

    @Test("Hand-overs that are not the waiting sign-in's redirect return false and change nothing")
    func handOverEdges() async throws {
        let desktop = try TestBrowserDesktop(.registered)
        defer { desktop.remove() }
        // Its GApplications connect to the session bus even when non-unique: a private one, not an autolaunched one.
        let report = try await ScenarioRunner.run(
            SystemBrowserScenario.customSchemeEdges, environment: desktop.environment, timeout: .seconds(60),
            launcher: ["dbus-run-session", "--"])
        #expect(report[.handOverWithoutSession] == false)
        #expect(report[.openWithoutSessionSurvived] == true)
        #expect(report[.connectNotAnApp] == "invalidParameters")
        #expect(report[.connectRegisteredWithoutOpen] == "invalidParameters")
        #expect(report[.connectRegisteredWithoutOpenMessage]?.contains("G_APPLICATION_HANDLES_OPEN") == true)
        #expect(report[.handlersAfterConnect] == 1)
        #expect(report[.preparedRedirectURI] == "com.example.webviewhost:/oauth2redirect")
        // Before the browser is shown, a redirect is not taken (a stale one from an earlier attempt).
        #expect(report[.handOverBeforePresent] == false)
        #expect(report[.handOverOtherPath] == false)
        #expect(report[.handOverOtherScheme] == false)
        #expect(report[.runningAfterWrongURIs] == true)
        // The right URI through GApplication's open completes it; afterwards, hand-overs are ignored.
        #expect(report[.outcome] == "success")
        #expect(report[.code] == "the-code")
        #expect(report[.state] == "s-123")
        #expect(report[.handOverAfterEnd] == false)
        #expect(report[.handlersAfterDisconnect] == 0)
    }

    @Test(
        "Valid private-use schemes (RFC 8252 7.1)",
        arguments: ["com.example.app", "com.example.webviewhost", "com.googleusercontent.apps.123-abc", "org.example+x.app", "a.b"])
    func validSchemes(scheme: String) throws {
        try CustomSchemeRegistration.validate(scheme: scheme)
    }

    @Test(
        "Invalid schemes fail with invalidParameters and say why",
        arguments: [
            ("", "empty"), ("myapp", "no period"), ("Com.example.app", "start with a lowercase letter"), ("com.Example.app", "uppercase letter"), ("com.example_app", "\"_\""),
            ("1com.example", "start with a lowercase letter"), (".com.example", "start with a lowercase letter"),
            ("com.example.", "empty label"), ("com..example", "empty label"), ("com.exämple", "\"ä\""),
            ("com example.app", "\" \""), ("http", "no period"),
        ])
    func invalidSchemes(scheme: String, reason: String) {
        let error = #expect(throws: WebAuthError.self) { try CustomSchemeRegistration.validate(scheme: scheme) }
        #expect(error?.code == .invalidParameters)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("RFC 8252") == true)
    }

    @Test("install refuses a bad scheme, application id or executable before writing anything")
    func installValidation() throws {
        let cases: [(scheme: String, id: String, executable: String, says: String)] = [
            ("myapp", "org.example.App", "/bin/true", "no period"),
            ("com.example.app", "../evil", "/bin/true", "application id"),
            ("com.example.app", "NoDots", "/bin/true", "application id"),
            ("com.example.app", "org.example.App", "/nonexistent/app", "not an executable"),
            ("com.example.app", "org.example.App", "/bin/true\nExec=evil", "control characters"),
            ("com.example.app", "org.example.App", "", "control characters"),
        ]
        for item in cases {
            let error = #expect(throws: WebAuthError.self) {
                try CustomSchemeRegistration.install(
                    scheme: item.scheme, applicationID: item.id, executable: item.executable, displayName: "x")
            }
            #expect(error?.code == .invalidParameters)
            #expect(error?.message.contains(item.says) == true, "\(error?.message ?? "")")
        }
    }

    @Test("A session with a custom-scheme redirect URI: validated, no listener, returned unchanged by prepare")
    @MainActor
    func sessionRedirectValidation() async throws {
        // Sandboxed: the provider is available without looking for a browser on this machine.
        let environment = WebviewEnvironment(variables: [:], hasDisplay: true, isSandboxed: true)
        try await WebviewProviderRegistry.withIsolatedRegistry {
            WebviewProviderRegistry.register(SystemBrowserProvider())
            for bad in ["myapp:/oauth2redirect", "Com.Example.App:/oauth2redirect", "com..example:/cb"] {
                let session = WebAuthSession(
                    redirectURI: URL(string: bad)!, parameters: .init(webviewType: .authenticationSession),
                    environment: environment)
                let error = await #expect(throws: WebAuthError.self) { _ = try await session.prepare() }
                #expect(error?.code == .invalidParameters, "\(bad)")
                #expect(error?.message.contains("RFC 8252") == true, "\(error?.message ?? "")")
            }
            let good = URL(string: "com.example.app:/oauth2redirect")!
            let session = WebAuthSession(
                redirectURI: good, parameters: .init(webviewType: .authenticationSession), environment: environment)
            let prepared = try await session.prepare()
            #expect(prepared == good)
            session.cancel()
        }
    }

    @Test("install under umask 000: the entry is 0600; a missing applications folder is created 0700, an existing one is left alone")
    func installPermissions() async throws {
        let desktop = try TestBrowserDesktop(.registered)
        defer { desktop.remove() }
        // A data folder that does not exist yet: install creates it and the applications folder.
        var fresh = desktop.environment
        fresh["XDG_DATA_HOME"] = desktop.root.appendingPathComponent("fresh/data").path
        let created = try await ScenarioRunner.run(
            SystemBrowserScenario.installPermissions, environment: fresh, timeout: .seconds(60),
            launcher: ["dbus-run-session", "--"])
        #expect(created[.entryMode] == 0o600)
        #expect(created[.entryModeAfterReinstall] == 0o600)
        #expect(created[.applicationsMode] == 0o700)
        #expect(created[.dataHomeMode] == 0o700)

        // The test desktop's applications folder exists (0755): it keeps its mode.
        let applications = desktop.root.appendingPathComponent("data/applications").path
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: applications)
        let existing = try await ScenarioRunner.run(
            SystemBrowserScenario.installPermissions, environment: desktop.environment, timeout: .seconds(60),
            launcher: ["dbus-run-session", "--"])
        #expect(existing[.entryMode] == 0o600)
        #expect(existing[.applicationsMode] == 0o755)
    }

    @Test(
        "install with an executable path holding %, spaces, quotes, $, ` and \\: GIO reads the entry and `gio open` starts it with the URI",
        arguments: [SystemBrowserScenario.installOddPath, .installOddPathNoPercent])
    func installOddExecutablePath(scenario: SystemBrowserScenario) async throws {
        let desktop = try TestBrowserDesktop(.registered)
        defer { desktop.remove() }
        let report = try await ScenarioRunner.run(
            scenario, environment: desktop.environment, timeout: .seconds(60),
            launcher: ["dbus-run-session", "--"])
        #expect(report[.installError] == nil, "\(report[.installError] ?? "")")
        let handler = try #require(report[.handlerPath])
        #expect(handler.contains("%") == (scenario == .installOddPath))
        #expect(handler.contains(" ") && handler.contains("'") && handler.contains("\"") && handler.contains("$"))
        #expect(report[.gioStatus] == 0)
        // The program GIO started is the handler itself, with the URI as its only argument.
        #expect(report[.handlerArguments] == [handler, try #require(report[.openedURI])])
    }
}
