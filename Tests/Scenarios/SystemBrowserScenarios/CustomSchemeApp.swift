import WebviewHostGTK3
import Foundation
import GLibSupport
import ScenarioSupport
import SystemBrowserProvider
import WebviewHost

/// This program as the app of the custom-scheme scenarios: the first instance runs the sign-in,
/// the desktop starts a second instance with the redirect URI (`Exec=<this program> %u`), whose
/// `GApplication` hands the URI over D-Bus to the first and exits.
enum CustomSchemeApp {
    static let scheme = "com.example.webviewhost"
    static let redirectURI = "\(scheme):/oauth2redirect"
    static let applicationID = "org.webviewhost.SchemeTest"

    /// Whether this process was started by the desktop with a URI of the test scheme.
    static var isSecondInstance: Bool {
        CommandLine.arguments.count == 2 && CommandLine.arguments[1].hasPrefix(scheme + ":")
    }

    /// The second instance: a plain `GApplication` with the same id runs with the URI (no GTK,
    /// no display), hands it to the primary instance and exits. Writes what happened as a JSON
    /// line to `SCHEME_TEST_SECOND_LOG`. Ends itself after 15 s whatever happens (SIGALRM).
    @MainActor
    static func runSecondInstance() -> Never {
        alarm(15)
        let started = ContinuousClock.now
        let app = g_application_new(applicationID, G_APPLICATION_HANDLES_OPEN)!
        // `startup` and `open` are emitted here only if this instance became the primary one
        // (g_application_run unregisters before it returns, so is_remote cannot be asked after).
        var startedHere = false
        var openedHere = 0
        let signals = SignalConnections()
        signals.connect(app, "startup", .plain { startedHere = true })
        signals.connect(app, "open", .open { uris, _ in openedHere += uris.count })
        let status = g_application_run(wvh_application(app), CommandLine.argc, CommandLine.unsafeArgv)
        signals.disconnectAll()
        let elapsed = ContinuousClock.now - started
        let record: [String: Any] = [
            "event": "second-instance",
            "uri": CommandLine.arguments[1],
            "status": Int(status),
            "isRemote": !startedHere,
            "openedHere": openedHere,
            "seconds": Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            "pid": Int(getpid()),
        ]
        if let path = ProcessInfo.processInfo.environment["SCHEME_TEST_SECOND_LOG"],
            let data = try? JSONSerialization.data(withJSONObject: record),
            let handle = FileHandle(forWritingAtPath: path) ?? {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                return FileHandle(forWritingAtPath: path)
            }()
        {
            handle.seekToEndOfFile()
            handle.write(data + Data("\n".utf8))
            handle.closeFile()
        }
        g_object_unref(app)
        exit(status)
    }

    /// The first instance: registers the scheme (desktop entry, default handler), registers its
    /// `GApplication` on the session bus, connects the library's `open` handler, and signs in
    /// through the test browser, which opens the custom-scheme redirect with `gio open`.
    @MainActor
    static func runFirstInstance() async throws -> ScenarioReport {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let desktopFile = try CustomSchemeRegistration.install(
            scheme: scheme, applicationID: applicationID, executable: executable,
            displayName: "WebviewHost scheme test")

        // Default flags: connect(to:) adds G_APPLICATION_HANDLES_OPEN before registration.
        let app = g_application_new(applicationID, G_APPLICATION_DEFAULT_FLAGS)!
        let redirects = try CustomSchemeRedirect.connect(to: ApplicationHandle(app))
        let flagsAfterConnect = g_application_get_flags(wvh_application(app)).rawValue
        var opened: [String] = []
        let observer = SignalConnections()
        observer.connect(app, "open", .open { uris, _ in opened.append(contentsOf: uris) })
        _ = try withGError { g_application_register(wvh_application(app), nil, $0) }
        let isRemote = g_application_get_is_remote(wvh_application(app)) != 0

        // A hand-over that never arrives fails in 20 s (timedOut), not at the 10-minute default.
        var report = try await SignInRun(
            redirectURI: redirectURI, timeout: .seconds(20),
            browserEnvironment: browser(["TEST_BROWSER_OPEN_WITH": "gio open"])
        ).run()
        report[.desktopFile] = desktopFile.path
        report[.firstInstanceIsRemote] = isRemote
        report[.handlesOpenAfterConnect] = flagsAfterConnect & G_APPLICATION_HANDLES_OPEN.rawValue != 0

        // The second instance's own account of itself (bounded wait).
        let log = ProcessInfo.processInfo.environment["SCHEME_TEST_SECOND_LOG"] ?? "/dev/null"
        var second: [String: Any]?
        let deadline = ContinuousClock.now + .seconds(15)
        while second == nil, ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            second = text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }.last
            if second == nil { await ScenarioHost.idle(.milliseconds(100)) }
        }
        report[.secondInstanceCount] =
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").count
        if let second {
            report[.secondInstanceStatus] = second["status"] as? Int ?? -1
            report[.secondInstanceIsRemote] = second["isRemote"] as? Bool ?? false
            report[.secondInstanceSeconds] = second["seconds"] as? Double ?? -1
            report[.secondInstanceURI] = second["uri"] as? String ?? ""
            report[.secondInstanceOpenedHere] = second["openedHere"] as? Int ?? -1
        }
        report[.openedURIs] = opened
        // A second delivery of the same redirect after the outcome changes nothing.
        if let callback = opened.first.flatMap(URL.init(string:)) {
            report[.handOverAfterEnd] = WebAuthSession.handleOpenURL(callback)
        }
        redirects.disconnect()
        report[.connectedAfterDisconnect] = redirects.isConnected
        observer.disconnectAll()
        g_object_unref(app)
        return report
    }

    /// Hand-overs that must be ignored, the `open` path without D-Bus (a non-unique app), and
    /// `connect(to:)`'s refusals.
    @MainActor
    static func runEdges() async throws -> ScenarioReport {
        var report = ScenarioReport()
        let callback = URL(string: "\(redirectURI)?code=the-code&state=s-123")!
        report[.handOverWithoutSession] = WebAuthSession.handleOpenURL(callback)

        // connect(to:) refuses what is not a GApplication, and a registered app without HANDLES_OPEN.
        let notAnApp = UnsafeMutableRawPointer(g_cancellable_new()!)  // a GObject, not a GApplication
        do {
            _ = try CustomSchemeRedirect.connect(to: ApplicationHandle(rawValue: notAnApp))
            report[.connectNotAnApp] = "connected"
        } catch {
            report[.connectNotAnApp] = error.code.name
        }
        g_object_unref(notAnApp)
        let closed = g_application_new("org.webviewhost.NoOpen", G_APPLICATION_NON_UNIQUE)!
        _ = try withGError { g_application_register(wvh_application(closed), nil, $0) }
        do {
            _ = try CustomSchemeRedirect.connect(to: ApplicationHandle(closed))
            report[.connectRegisteredWithoutOpen] = "connected"
        } catch {
            report[.connectRegisteredWithoutOpen] = error.code.name
            report[.connectRegisteredWithoutOpenMessage] = error.message
        }
        g_object_unref(closed)

        // A non-unique app (no D-Bus): g_application_open emits `open` in this process.
        let app = g_application_new("org.webviewhost.EdgeTest", G_APPLICATION_NON_UNIQUE)!
        let redirects = try CustomSchemeRedirect.connect(to: ApplicationHandle(app))
        _ = try withGError { g_application_register(wvh_application(app), nil, $0) }
        report[.handlersAfterConnect] = SignalInspection.handlerCount(on: app)
        open(app, callback.absoluteString)
        report[.openWithoutSessionSurvived] = true

        // A sign-in waits (the browser stops at the login page); wrong URIs do not end it.
        WebviewProviderRegistry.register(SystemBrowserProvider())
        for (key, value) in browser(["TEST_BROWSER_STALL": "1"]) { setenv(key, value, 1) }
        let login = try LoginServer()
        let session = WebAuthSession(
            redirectURI: URL(string: redirectURI)!,
            parameters: .init(webviewType: .authenticationSession, timeout: .seconds(20)))
        let prepared = try await session.prepare()
        report[.preparedRedirectURI] = prepared.absoluteString
        report[.handOverBeforePresent] = WebAuthSession.handleOpenURL(callback)
        let running = Task { @MainActor in
            try await session.start(
                authorizationURL: login.authorizationURL(redirectURI: prepared, parameters: [("state", "s-123")]),
                expectedState: "s-123")
        }
        await ScenarioHost.idle(.milliseconds(300))
        report[.handOverOtherPath] =
            WebAuthSession.handleOpenURL(URL(string: "\(scheme):/elsewhere?code=x&state=s-123")!)
        report[.handOverOtherScheme] =
            WebAuthSession.handleOpenURL(URL(string: "com.example.other:/oauth2redirect?code=x&state=s-123")!)
        open(app, "file:///tmp/not-a-redirect.txt")
        report[.runningAfterWrongURIs] = await isStillRunning(running)
        open(app, callback.absoluteString)
        switch await running.result {
        case .success(let response):
            report[.outcome] = "success"
            report[.code] = response.code ?? ""
            report[.state] = response.state ?? ""
        case .failure(let error):
            report[.outcome] = "error"
            report[.errorCode] = (error as? WebAuthError)?.code.name ?? "\(error)"
        }
        report[.handOverAfterEnd] = WebAuthSession.handleOpenURL(callback)
        redirects.disconnect()
        report[.handlersAfterDisconnect] = SignalInspection.handlerCount(on: app)
        g_object_unref(app)
        login.close()
        return report
    }

    /// Whether `task` is still waiting, after one more main-loop turn.
    @MainActor
    private static func isStillRunning<T: Sendable>(_ task: Task<T, any Error>) async -> Bool {
        var done = false
        Task { @MainActor in
            _ = await task.result
            done = true
        }
        await ScenarioHost.idle(.milliseconds(100))
        return !done
    }

    /// `g_application_open` with one URI.
    @MainActor
    private static func open(_ app: UnsafeMutablePointer<GApplication>, _ uri: String) {
        let file = g_file_new_for_uri(uri)
        var files: [OpaquePointer?] = [file]
        files.withUnsafeMutableBufferPointer { g_application_open(wvh_application(app), $0.baseAddress, 1, "") }
        g_object_unref(UnsafeMutableRawPointer(file))
    }
}
