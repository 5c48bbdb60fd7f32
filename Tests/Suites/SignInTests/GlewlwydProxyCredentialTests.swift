import Foundation
import ScenarioSupport
import Testing
import WebviewHost

/// The desktop's proxy with a user name and password in its URI (issue 40):
/// `http_proxy=http://user:password@proxy:3128`, or GNOME's proxy settings with authentication on
/// (GIO's resolver writes them into the URI the same way). libsoup 3 cannot use such a URI; the
/// library takes them out of it for SignIn's requests and the sign-in window's pages and answers
/// the proxy's first 407 with them: no question. A proxy that refuses them asks the person. No
/// output of the app ever holds the password. In a Flatpak the URI comes from the ProxyResolver
/// portal, which passes on what the host's resolver gives.
extension GlewlwydSignInTests {
    /// Where the desktop's proxy is set: the environment's `http_proxy`, GNOME's settings, or the
    /// ProxyResolver portal (a Flatpak app on a GNOME desktop whose proxy needs a password).
    enum DesktopProxySource: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case environment, gnome, portal
        var testDescription: String {
            switch self {
            case .environment: "http_proxy"
            case .gnome: "GNOME's settings"
            case .portal: "the ProxyResolver portal"
            }
        }
    }

    /// A desktop whose proxy is `127.0.0.1:port` with `user` and `password`, from `source`; a
    /// portal started for it is added to `portals`, for the caller to stop.
    func credentialProxyEnvironment(
        _ source: DesktopProxySource, desktop: TestDesktop, port: Int, user: String, password: String, portals: inout [ProxyPortal]
    ) throws -> [String: String] {
        switch source {
        case .gnome:
            return try gnomeProxyEnvironment(desktop: desktop, port: port, credential: (user, password))
        case .portal:
            // Nothing but the portal names a proxy; it sends loopback's "localhost" direct, as
            // GNOME's default ignore-hosts do, and everything else (127.0.0.1 too) through the proxy.
            let portal = try ProxyPortal(proxy: "http://\(user):\(password)@127.0.0.1:\(port)", direct: ["localhost"])
            portals.append(portal)
            var environment = desktop.environment.merging(portal.environment) { _, new in new }
            for name in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "no_proxy"] { environment[name] = "" }
            environment["XDG_CURRENT_DESKTOP"] = ""
            return environment
        case .environment:
            var environment = desktop.environment
            for name in ["HTTP_PROXY", "HTTPS_PROXY", "all_proxy"] { environment[name] = "" }
            // As a managed machine sets them: the same proxy for both schemes.
            environment["http_proxy"] = "http://\(user):\(password)@127.0.0.1:\(port)"
            environment["https_proxy"] = environment["http_proxy"]
            environment["no_proxy"] = ""
            environment["XDG_CURRENT_DESKTOP"] = ""
            return environment
        }
    }

    /// A launcher that copies the scenario program's standard output (where swift-log's default
    /// handler writes) and standard error into `folder` (`out`, `err`), the report still reaching the runner.
    static func capturingLauncher(into folder: URL) -> [String] {
        let out = folder.appendingPathComponent("out").path, err = folder.appendingPathComponent("err").path
        return ["sh", "-c", "\"$@\" 2>>'\(err)' | tee -a '\(out)'", "sh"]
    }

    /// Everything the program wrote (its report included) and the report as JSON.
    static func everythingSaid(in folder: URL, _ reports: [ScenarioReport]) throws -> String {
        let printed = ["out", "err"].map { (try? String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) ?? "" }
        let encoded = try reports.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        return (printed + encoded).joined(separator: "\n")
    }

    static let sourcesByToolkit: [(String, DesktopProxySource)] = toolkitPrograms.flatMap { program in
        DesktopProxySource.allCases.map { (program, $0) }
    }

    @Test("The desktop's proxy with the right user name and password in its URI: the whole sign-in goes through it, nobody is asked, the password is in no output",
          arguments: sourcesByToolkit)
    func credentialInDesktopProxy(_ program: String, _ source: DesktopProxySource) async throws {
        let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-pw-7"))
        defer { proxy.stop() }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        var portals: [ProxyPortal] = []
        defer { portals.forEach { $0.stop() } }
        let folder = desktop.root.appendingPathComponent("output")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var environment = try credentialProxyEnvironment(source, desktop: desktop, port: proxy.port, user: "alice-proxy", password: "proxy-pw-7", portals: &portals)
        // Were the app asked, it would answer (and the count would say so).
        environment["SIGNIN_PROXY_PASSWORDS"] = "proxy-pw-7"
        let report = try await proxiedRun(
            .throughProxy, ["window", server.clientID, server.deviceClientID], environment: environment, program: program,
            launcher: Self.capturingLauncher(into: folder))
        expectEverythingThrough(proxy, report)
        #expect(report[.proxyAsks] == 0, "nobody asked: the URI's credential answered")
        if source == .portal { #expect(portals.first?.lookups.isEmpty == false, "the proxy came from the portal") }
        #expect(!(try Self.everythingSaid(in: folder, [report])).contains("proxy-pw-7"))
    }

    @Test("The desktop's proxy with a wrong password in its URI (a proxy that says 407 again, as squid): the person is asked once, and the whole sign-in goes through with the answer",
          arguments: [("SignInScenarios", DesktopProxySource.environment), ("SignInScenariosGTK4", .gnome), ("SignInScenarios", .portal)])
    func wrongCredentialInDesktopProxy(_ program: String, _ source: DesktopProxySource) async throws {
        let proxy = try BasicAuthProxy(user: "alice-proxy", password: "proxy-secret")
        defer { proxy.stop() }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        var portals: [ProxyPortal] = []
        defer { portals.forEach { $0.stop() } }
        var environment = try credentialProxyEnvironment(
            source, desktop: desktop, port: proxy.port, user: "alice-proxy", password: "proxy-pw-7", portals: &portals)
        environment["SIGNIN_PROXY_PASSWORDS"] = "proxy-secret"
        let report: ScenarioReport
        do {
            report = try await proxiedRun(.throughProxy, ["window", server.clientID, server.deviceClientID], environment: environment, program: program)
        } catch {
            Issue.record("\(error)\nThe proxy saw: \(proxy.requests)")
            return
        }
        expectEverythingThrough(proxy, report)
        #expect(report[.proxyAsks] == 1, "asked once, after the proxy refused the URI's password")
        #expect(proxy.requests.contains { $0.hasSuffix(" wrong") }, "the URI's password went first: \(proxy.requests)")
    }

    @Test("A known proxy password through every path (http_proxy, GNOME's settings and the ProxyResolver portal to a proxy that is down, to one that refuses it, the app's answer, the library's dialog, help) appears in no error, report, log or standard error")
    func proxyPasswordInNoOutput() async throws {
        let secret = "proxy-pw-7"
        let refusingFolder = FileManager.default.temporaryDirectory.appendingPathComponent("refusing-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: refusingFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: refusingFolder) }
        let refusing = try CleanSpawn(
            ["python3", Checkout.fixture("Proxy/refusing_proxy.py").path, refusingFolder.appendingPathComponent("requests.log").path],
            environment: ProcessInfo.processInfo.environment, processGroup: true)
        defer {
            kill(-refusing.pid, SIGTERM)
            _ = refusing.waitForExit()
        }
        let refusingPort = try #require(String(decoding: refusing.output!.availableData, as: UTF8.self).split(separator: "\n").first.flatMap { Int($0) })
        for source in DesktopProxySource.allCases {
            let desktop = try TestDesktop(browserCommand: nil)
            defer { desktop.remove() }
            var portals: [ProxyPortal] = []
            defer { portals.forEach { $0.stop() } }
            let folder = desktop.root.appendingPathComponent("output")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let launcher = Self.capturingLauncher(into: folder)
            // The proxy is down: the report of issue 40 ("could not be reached through the proxy http://user:password@...").
            let down = try RecordingProxy.freePort()
            let downEnvironment = try credentialProxyEnvironment(source, desktop: desktop, port: down, user: "corp-alice", password: secret, portals: &portals)
            let failed = try await proxiedRun(.embeddedWindow, [server.clientID], environment: downEnvironment, launcher: launcher)
            #expect(failed[.outcome] == "network", "\(source): \(failed[.message] ?? "")")
            #expect(failed[.message]?.contains("http://127.0.0.1:\(down)") == true, "names the proxy without its user info: \(failed[.message] ?? "")")
            let help = try await proxiedRun(.help, [], environment: downEnvironment, launcher: launcher)
            #expect(help[.message]?.contains("proxy: http://127.0.0.1:\(down) with a user name and password (not shown") == true, "\(help[.message] ?? "")")
            // A proxy that refuses every password, the URI's and the app's three answers (the same one).
            var refusedEnvironment = try credentialProxyEnvironment(source, desktop: desktop, port: refusingPort, user: "corp-alice", password: secret, portals: &portals)
            refusedEnvironment["SIGNIN_PROXY_PASSWORDS"] = secret
            let refused = try await proxiedRun(
                .throughProxy, ["window", server.clientID, server.deviceClientID], environment: refusedEnvironment, launcher: launcher)
            #expect(refused[.outcome] == "network", "\(source): \(refused[.message] ?? "")")
            #expect(refused[.message]?.contains("refused the user name and password") == true, "\(refused[.message] ?? "")")
            var reports = [failed, help, refused]
            if source == .environment {
                // The library's dialog, the password typed into it (real key events) three times.
                var typed = try credentialProxyEnvironment(source, desktop: desktop, port: refusingPort, user: "corp-alice", password: secret, portals: &portals)
                typed["SIGNIN_PROXY_DIALOG"] = "corp-alice \(secret)"
                let dialog = try await proxiedRun(
                    .throughProxy, ["window", server.clientID, server.deviceClientID], environment: typed, launcher: launcher)
                #expect(dialog[.outcome] == "network", "\(dialog[.message] ?? "")")
                #expect(dialog[.proxyAsks] == 2, "the URI's password refused, then the dialog's twice: \(dialog[.proxyDialogTexts] ?? [])")
                reports.append(dialog)
            }
            let said = try Self.everythingSaid(in: folder, reports)
            let printed = (try? String(contentsOf: folder.appendingPathComponent("out"), encoding: .utf8)) ?? ""
            #expect(printed.components(separatedBy: ScenarioHost.reportPrefix).count == reports.count + 1, "every program's output was captured: \(printed.prefix(300))")
            #expect(!said.contains(secret), "\(source): the password is in the output:\n\(said.split(separator: "\n").filter { $0.contains(secret) }.prefix(5).joined(separator: "\n"))")
            #expect(!said.contains("corp-alice:"), "\(source): a URI's user info is in the output")
        }
    }
}
