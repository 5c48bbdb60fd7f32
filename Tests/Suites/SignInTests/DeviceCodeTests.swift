import Foundation
import ScenarioSupport
import Synchronization
import Testing
import WebviewHost
#if canImport(Glibc)
import Glibc
#endif

@testable import SignIn

/// The device authorization grant against a scripted provider (`Tests/Fixtures/DeviceCode/device_server.py`)
/// for what a real server cannot be made to answer: refusals, an organization's block in
/// Microsoft Entra ID's shape, failures while polling, the old `verification_url` spelling, a
/// huge interval, a malformed answer. Glewlwyd covers the real flow (GlewlwydDeviceCodeTests).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct DeviceCodeTests {
    /// The scripted provider, running until ``stop()``.
    struct Server {
        let directory: URL
        let child: CleanSpawn
        let issuer: URL

        static func start(_ scenario: String) async throws -> Server {
            let directory = try TokenCacheScenario.temporaryDirectory()
            let script = Checkout.fixture("DeviceCode").appendingPathComponent("device_server.py").path
            let server = try await FixtureServer.start(["python3", script, directory.path, scenario], in: directory, keys: ["issuer"])
            guard let issuer = server.facts["issuer"].flatMap(URL.init(string:)) else {
                kill(server.child.pid, SIGKILL)
                _ = server.child.waitForExit()
                throw GlewlwydError("device_server.py gave no issuer URL: \(server.facts)")
            }
            return Server(directory: directory, child: server.child, issuer: issuer)
        }

        /// Each token request: when, and what the server answered.
        var polls: [(time: Double, answer: String)] {
            ((try? String(contentsOf: directory.appendingPathComponent("polls.log"), encoding: .utf8)) ?? "")
                .split(separator: "\n").compactMap { line in
                    let parts = line.split(separator: " ")
                    guard parts.count == 2, let time = Double(parts[0]) else { return nil }
                    return (time, String(parts[1]))
                }
        }

        func app(storage: any TokenCacheStorage = InMemoryTokenCacheStorage()) throws -> PublicClientApplication {
            // A short network limit: a dropped connection is tried again sooner.
            try PublicClientApplication(configuration: .init(
                clientID: "device-tests", authority: issuer, redirectURI: URL(string: "http://127.0.0.1/callback")!,
                networkTimeout: 5, tokenCacheStorage: storage))
        }

        func stop() {
            _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("stop").path, contents: nil)
            if child.exitStatusIfEnded() == nil { kill(child.pid, SIGTERM) }
            _ = child.waitForExit()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Runs the flow with the app display, returning the challenge shown and the outcome.
    @MainActor
    func signIn(_ app: PublicClientApplication) async -> (challenge: DeviceCodeChallenge?, result: Result<AuthenticationResult, WebAuthError>) {
        var shown: DeviceCodeChallenge?
        // A registry (and one-session slot) of its own: the suites run in parallel in one process.
        return await WebviewProviderRegistry.withIsolatedRegistry {
            do throws(WebAuthError) {
                let result = try await app.acquireTokenWithDeviceCode(with: DeviceCodeParameters(scopes: ["api"], display: .app { shown = $0 }))
                return (shown, .success(result))
            } catch {
                return (shown, .failure(error))
            }
        }
    }

    @Test @MainActor func pendingThenTokensGivesAVerifiedResultKeptInTheCacheAndTheChallengeCarriesEverything() async throws {
        let server = try await Server.start("approve")
        defer { server.stop() }
        let storage = InMemoryTokenCacheStorage()
        let app = try server.app(storage: storage)
        let (challenge, result) = await signIn(app)
        let tokens = try result.get()
        #expect(tokens.account.username == "dana@example.com")
        #expect(tokens.idTokenClaims.subject == "device-person")
        let shown = try #require(challenge)
        #expect(shown.userCode == "WDJB-MJHT")
        #expect(shown.verificationURI.path == "/activate")
        #expect(shown.verificationURIComplete?.query == "user_code=WDJB-MJHT")
        #expect(shown.interval == .seconds(1))
        #expect(abs(shown.expiresOn.timeIntervalSinceNow - 600) < 60)
        #expect(shown.message?.contains("WDJB-MJHT") == true)
        #expect(shown.instructions.contains("Go on only if you started this sign-in yourself"), "the phishing warning (RFC 8628 5.4)")
        #expect(server.polls.map(\.answer) == ["pending", "pending", "tokens"])
        // Kept: a silent call finds the account without the server.
        #expect(try await app.allAccounts() == [tokens.account])
        #expect(try storage.load() != nil)
    }

    @Test @MainActor func slowDownAddsFiveSecondsForGood() async throws {
        let server = try await Server.start("slow-down")
        defer { server.stop() }
        let (_, result) = await signIn(try server.app())
        _ = try result.get()
        let polls = server.polls
        #expect(polls.map(\.answer) == ["slow_down", "slow_down", "pending", "tokens"])
        let gaps = zip(polls.dropFirst(), polls).map { $0.time - $1.time }
        // interval 1 s; after the first slow_down 6 s, after the second 11 s, and it stays 11 s.
        #expect(gaps.count == 3)
        #expect(gaps[0] >= 5.9 && gaps[1] >= 10.9 && gaps[2] >= 10.9, "the gaps between polls: \(gaps)")
    }

    @Test(arguments: [
        ("denied", WebAuthError.Code.deviceCodeDenied), ("entra-blocked", .deviceCodeBlocked), ("expired", .deviceCodeExpired),
        ("unknown-error", .server),
    ])
    @MainActor func refusalsEndWithTheirOwnCodes(_ scenario: String, _ code: WebAuthError.Code) async throws {
        let server = try await Server.start(scenario)
        defer { server.stop() }
        let (_, result) = await signIn(try server.app())
        guard case .failure(let error) = result else {
            Issue.record("\(scenario) succeeded")
            return
        }
        #expect(error.code == code, "\(error)")
        if scenario == "entra-blocked" {
            #expect(error.message == "Your organization does not allow signing in with a code on another device. Sign in with a browser instead.")
            #expect(error.serverError?.errorDescription?.contains("AADSTS53003") == true, "the server's words are kept")
        }
        if scenario == "unknown-error" { #expect(error.serverError?.error == "something_else") }
    }

    @Test @MainActor func failuresWhilePollingAreTriedAgain() async throws {
        let server = try await Server.start("flaky")
        defer { server.stop() }
        let (_, result) = await signIn(try server.app())
        _ = try result.get()
        #expect(server.polls.map(\.answer) == ["503", "drop", "502", "tokens"])
    }

    @Test @MainActor func theOldVerificationURLSpellingIsRead() async throws {
        let server = try await Server.start("verification-url")
        defer { server.stop() }
        let (challenge, result) = await signIn(try server.app())
        _ = try result.get()
        #expect(challenge?.verificationURI.path == "/activate")
        #expect(challenge?.verificationURIComplete == nil)
        #expect(challenge?.instructions.contains("enter the code WDJB-MJHT") == true)
    }

    @Test(arguments: ["expire-quickly", "huge-interval"])
    @MainActor func theCodeExpiringEndsTheWaitAtItsExpiry(_ scenario: String) async throws {
        let server = try await Server.start(scenario)
        defer { server.stop() }
        let started = ContinuousClock.now
        let (_, result) = await signIn(try server.app())
        let took = ContinuousClock.now - started
        guard case .failure(let error) = result else {
            Issue.record("\(scenario) succeeded")
            return
        }
        #expect(error.code == .deviceCodeExpired)
        #expect(took < .seconds(30), "it ended at the code's expiry (3-4 s), not after the interval: \(took)")
    }

    @Test @MainActor func aMalformedAnswerIsInvalidResponse() async throws {
        let server = try await Server.start("malformed")
        defer { server.stop() }
        let (challenge, result) = await signIn(try server.app())
        #expect(challenge == nil)
        guard case .failure(let error) = result else {
            Issue.record("succeeded")
            return
        }
        #expect(error.code == .invalidResponse)
    }

    @Test @MainActor func cancellingStopsPollingAtOnce() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry { try await cancellingStopsPollingAtOnceIsolated() }
    }

    @MainActor func cancellingStopsPollingAtOnceIsolated() async throws {
        for how in ["task", "app"] {
            let server = try await Server.start("expire-quickly")  // never approved
            defer { server.stop() }
            let app = try server.app()
            let shown = Mutex(false)
            let task = Task { @MainActor in
                try await app.acquireTokenWithDeviceCode(with: DeviceCodeParameters(scopes: [], display: .app { _ in shown.withLock { $0 = true } }))
            }
            while !shown.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
            let cancelledAt = ContinuousClock.now
            if how == "task" { task.cancel() } else { app.cancelCurrentInteractiveSession() }
            do {
                _ = try await task.value
                Issue.record("\(how): not cancelled")
            } catch let error as WebAuthError {
                #expect(error.code == .canceled, "\(how)")
            }
            #expect(ContinuousClock.now - cancelledAt < .seconds(1), "\(how): polling stopped at once")
            let polls = server.polls.count
            try await Task.sleep(for: .seconds(2))
            #expect(server.polls.count == polls, "\(how): no poll after the cancel")
        }
    }

    @Test func theTerminalTextHasTheWarningTheCodeAndAQRCodeThatFitsIn80Columns() throws {
        let challenge = DeviceCodeChallenge(
            userCode: "WDJB-MJHT", verificationURI: URL(string: "https://login.example.com/device")!,
            verificationURIComplete: URL(string: "https://login.example.com/device?user_code=WDJB-MJHT")!,
            expiresOn: Date().addingTimeInterval(900), interval: .seconds(5), message: nil)
        let lines = DeviceCodeTerminal.lines(challenge, isTerminal: true, columns: 80)
        #expect(lines.contains { $0.contains("Go on only if you started this sign-in yourself") })
        #expect(lines.contains("Code: WDJB-MJHT"))
        #expect(lines.contains { $0.hasPrefix("This code expires at ") })
        let qr = lines.filter { $0.contains("█") || $0.contains("▀") || $0.contains("▄") }
        #expect(qr.count > 10)
        #expect(lines.allSatisfy { $0.count <= 80 || $0.contains("Go on only") || $0.contains("open ") }, "fits in 80 columns")
        let plain = DeviceCodeTerminal.lines(challenge, isTerminal: false)
        #expect(!plain.contains { $0.contains("█") || $0.contains("\u{1B}") }, "no QR and no escape codes when not a terminal")
    }

    /// What a person reads in a terminal, in the language of the terminal's environment
    /// (`LANGUAGE`, with `LC_ALL=C.UTF-8` as on a minimal system): the warning's start, the code,
    /// the QR code's caption and the expiry line.
    static let terminalTexts: [(language: String, texts: [String])] = [
        ("", ["You are letting this device sign in as you.", "Code: WDJB-MJHT", "Or scan this code with your phone's camera", "This code expires at "]),
        ("fr", ["Vous autorisez cet appareil", "Code\u{00A0}: WDJB-MJHT", "Ou scannez ce code avec l’appareil photo de votre téléphone", "Ce code expire à "]),
        ("ru", ["Вы разрешаете этому устройству", "Код: WDJB-MJHT", "Или отсканируйте этот код камерой телефона", "Срок действия кода истекает в "]),
        ("de", ["Sie erlauben diesem Gerät", "Code: WDJB-MJHT", "Oder scannen Sie diesen Code mit der Kamera Ihres Telefons", "Dieser Code läuft um "]),
    ]

    /// The terminal display as a person meets it: a program run in a real terminal (tmux, 100
    /// columns) shows the warning, the code, the link and a QR code that zbarimg reads back
    /// from the pane's text (each half block a pixel, the dark background around it), in the
    /// person's language.
    @Test(arguments: terminalTexts.map(\.language))
    func theTerminalShowsTheCodeAndAQRCodeAPhoneCanRead(_ language: String) async throws {
        let texts = try #require(Self.terminalTexts.first { $0.language == language }?.texts)
        let server = try await Server.start("pending")
        defer { server.stop() }
        let socket = "wvh-device-\(UUID().uuidString.prefix(8))"
        let command = [
            "env", "ISSUER=\(server.issuer.absoluteString)", "CLIENT_ID=device-tests", "STORE=memory",
            "LANGUAGE=\(language)", "LC_ALL=C.UTF-8", "LANG=C.UTF-8", TokenCacheScenario.program,
            TokenCacheCommand.deviceCode.rawValue,
        ]
        let started = try await ScriptRunner.run("tmux", ["-L", socket, "new-session", "-d", "-x", "100", "-y", "60"] + command, timeout: 30)
        #expect(started.status == 0, "\(started.standardError)")
        defer {
            let tmux = Process()
            tmux.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            tmux.arguments = ["tmux", "-L", socket, "kill-server"]
            if (try? tmux.run()) != nil { tmux.waitUntilExit() }
        }
        var pane = ""
        let deadline = ContinuousClock.now + Patience.scaled(.seconds(30))
        while ContinuousClock.now < deadline {
            pane = try await ScriptRunner.run("tmux", ["-L", socket, "capture-pane", "-p"], timeout: 30).standardOutput
            if pane.contains(texts[3]) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        for text in texts {
            #expect(pane.contains(text), "\(language.isEmpty ? "English" : language): \(text)\n\(pane)")
        }
        let capture = server.directory.appendingPathComponent("pane.txt")
        let picture = server.directory.appendingPathComponent("pane.pbm")
        try pane.write(to: capture, atomically: true, encoding: .utf8)
        let script = Checkout.fixture("DeviceCode").appendingPathComponent("terminal_qr.py").path
        let converted = try await ScriptRunner.run("python3", [script, capture.path, picture.path], timeout: 30)
        #expect(converted.status == 0, "\(converted.standardError)")
        let read = try await ScriptRunner.run("zbarimg", ["--quiet", "--raw", picture.path], timeout: 30)
        #expect(read.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == server.issuer.absoluteString + "/activate?user_code=WDJB-MJHT",
                "the QR code in the terminal: \(read.standardOutput) \(read.standardError)\n\(pane)")
    }
}
