import Foundation
import ScenarioSupport
@testable import TokenCache
#if canImport(Glibc)
    import Glibc
#endif
import Testing

/// The local Glewlwyd OpenID Connect server, started with `Tests/Fixtures/Glewlwyd/glewlwyd.sh` on
/// 127.0.0.1 in a temporary state directory for the suite that carries ``GlewlwydServer/Trait``.
struct GlewlwydServer: Sendable {
    /// `Tests/Fixtures/Glewlwyd` in this checkout.
    static let scriptsDirectory = Checkout.fixture("Glewlwyd")
    static var browserScript: URL { scriptsDirectory.appendingPathComponent("browser_signin.py") }
    /// `SIGNIN_TESTS_GLEWLWYD_PORT`, else a port that is free on 127.0.0.1 now, below the
    /// ephemeral range: a fixed port clashed with other checkouts' runs and with a server an
    /// interrupted run left behind, and the kernel's choice was once taken by an outgoing
    /// connection during Glewlwyd's setup.
    static let port = ProcessInfo.processInfo.environment["SIGNIN_TESTS_GLEWLWYD_PORT"] ?? freeLoopbackPort()

    /// A TCP port nothing listens on at 127.0.0.1 (``RecordingProxy/freePort()``); 4617 if none could be had.
    private static func freeLoopbackPort() -> String {
        (try? RecordingProxy.freePort()).map(String.init) ?? "4617"
    }

    let stateDirectory: URL
    let values: [String: String]

    var issuer: URL { URL(string: values["ISSUER"]!)! }
    var baseURL: String { values["BASE_URL"]! }
    var clientID: String { values["CLIENT_ID"]! }
    var es256ClientID: String { values["CLIENT_ID_ES256"]! }
    var consentClientID: String { values["CLIENT_ID_CONSENT"]! }
    /// A client whose refresh tokens are one-use: a spent one is refused with `invalid_grant`.
    var oneUseClientID: String { values["CLIENT_ID_ONE_USE"]! }
    /// The client allowed the device authorization grant.
    var deviceClientID: String { values["CLIENT_ID_DEVICE"]! }
    var username: String { values["USERNAME"]! }
    var password: String { values["PASSWORD"]! }
    var userName: String { values["USER_NAME"]!.trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
    var userEmail: String { values["USER_EMAIL"]! }

    @TaskLocal static var current: GlewlwydServer?

    static func start() async throws -> GlewlwydServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signin-glewlwyd-\(UUID().uuidString)")
        let output = try await script("start", directory.path, timeout: 90)
        guard output.status == 0 else {
            throw GlewlwydError(
                "Glewlwyd did not start (glewlwyd.sh start exited \(output.status)); if it is not installed, install it with "
                    + "'sudo Tests/Fixtures/Glewlwyd/glewlwyd.sh install'. Its output:\n\(output.standardError)")
        }
        var values: [String: String] = [:]
        for line in output.standardOutput.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        for key in ["ISSUER", "BASE_URL", "CLIENT_ID", "CLIENT_ID_ES256", "CLIENT_ID_CONSENT", "CLIENT_ID_ONE_USE", "USERNAME", "PASSWORD", "USER_NAME", "USER_EMAIL"]
        where values[key] == nil {
            throw GlewlwydError("glewlwyd.sh start printed no \(key)=; output:\n\(output.standardOutput)")
        }
        return GlewlwydServer(stateDirectory: directory, values: values)
    }

    func stop() async throws {
        _ = try await Self.script("stop", stateDirectory.path, timeout: 30)
        try? FileManager.default.removeItem(at: stateDirectory)
    }

    /// `glewlwyd.sh grant|revoke STATE_DIR CLIENT_ID`: gives or withdraws alice's consent.
    func setConsent(_ granted: Bool, for clientID: String) async throws {
        let output = try await Self.script(granted ? "grant" : "revoke", stateDirectory.path, clientID, timeout: 60)
        guard output.status == 0 else { throw GlewlwydError("glewlwyd.sh \(granted ? "grant" : "revoke") failed: \(output.standardError)") }
    }

    /// Revokes every refresh token alice holds, as she would on her Glewlwyd profile page.
    func revokeRefreshTokens() async throws {
        let program = """
            import http.cookiejar, json, sys, urllib.parse, urllib.request
            base, user, password = sys.argv[1:4]
            op = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
            def call(method, path, body=None):
                data = None if body is None else json.dumps(body).encode()
                req = urllib.request.Request(base + "/api" + path, data=data, method=method, headers={"Content-Type": "application/json"})
                with op.open(req, timeout=10) as r:
                    return r.read()
            call("POST", "/auth/", {"username": user, "password": password})
            tokens = json.loads(call("GET", "/oidc/token?limit=1000"))
            live = [t for t in tokens if t["enabled"]]
            for t in live:
                call("DELETE", "/oidc/token/" + urllib.parse.quote(t["token_hash"], safe=""))
            print("REVOKED=%d" % len(live))
            """
        let output = try await ScriptRunner.run("python3", ["-c", program, baseURL, username, password], timeout: 30)
        guard output.status == 0, output.standardOutput.contains("REVOKED=") else {
            throw GlewlwydError("Revoking alice's refresh tokens failed: \(output.standardError)")
        }
    }

    /// The person's side of the device authorization grant, over Glewlwyd's REST API as its own
    /// tests do: signs alice in, then "Continue" on the device page for `userCode`
    /// (`GET /api/oidc/device?code=<user code>&g_continue`). Returns where Glewlwyd sent her.
    @discardableResult
    func approveDeviceCode(_ userCode: String) async throws -> String {
        let output = try await ScriptRunner.run(
            "python3", [Self.scriptsDirectory.appendingPathComponent("approve_device.py").path, baseURL, username, password, userCode],
            timeout: 30)
        guard output.status == 0, let line = output.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("LOCATION=") }) else {
            throw GlewlwydError("Approving the device code failed: \(output.standardError)")
        }
        return String(line.dropFirst("LOCATION=".count))
    }

    private static func script(_ arguments: String..., timeout: TimeInterval) async throws -> ScriptRunner.Output {
        try await ScriptRunner.run(
            "bash", [scriptsDirectory.appendingPathComponent("glewlwyd.sh").path] + arguments,
            environment: ["GLEWLWYD_PORT": port], timeout: timeout)
    }

    /// Starts Glewlwyd once around the whole suite and stops it afterwards. The suite fails
    /// (it is not skipped) when Glewlwyd cannot start.
    ///
    /// The suite's sign-ins listen at the fixed loopback ports its clients register
    /// (`glewlwyd.sh`): another test run of the project on the same machine waits for this one's
    /// suite to end (an exclusive lock on a file in /tmp), rather than finding the ports taken.
    struct Trait: SuiteTrait, TestScoping {
        var isRecursive: Bool { false }

        func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            let lock = try await Self.portsLock()
            defer { lock.release() }
            let server = try await GlewlwydServer.start()
            do {
                try await GlewlwydServer.$current.withValue(server) { try await function() }
            } catch {
                try? await server.stop()
                throw error
            }
            try await server.stop()
        }

        /// The machine's lock on the suite's loopback ports (`TokenCacheLockFile`, an `flock` on a
        /// file in /tmp), held by one test run at a time; another run's whole suite is waited for.
        private static func portsLock() async throws -> TokenCacheLockFile.Held {
            let file = URL(fileURLWithPath: "/tmp/webviewhost-tests-glewlwyd-ports.lock")
            if let free = try? await TokenCacheLockFile(url: file, timeout: 0).acquire() { return free }
            FileHandle.standardError.write(Data("Waiting for another test run's Glewlwyd suite to end (\(file.path))\n".utf8))
            return try await TokenCacheLockFile(url: file, timeout: 45 * 60).acquire()
        }
    }
}

extension Trait where Self == GlewlwydServer.Trait {
    /// Runs the suite against a local Glewlwyd server.
    static var glewlwyd: Self { Self() }
}

struct GlewlwydError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
