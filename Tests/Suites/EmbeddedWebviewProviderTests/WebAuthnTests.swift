import Crypto
import Foundation
import ScenarioSupport
import Testing
import TestTraits
import WebviewHostTestKit

/// Passkeys and security keys in the sign-in view (issue 42): the test's page calls the Web
/// Authentication API as sites do; the scenario's process reaches this test's virtual
/// authenticator through WEBVIEWHOST_VIRTUAL_AUTHENTICATORS (beneath libfido2, as an app's own tests
/// would); python3-fido2's relying party checks what the page got.
@Suite("Passkeys and security keys in the sign-in view (a virtual authenticator beneath libfido2)", .desktop)
struct WebAuthnTests {
    struct Run {
        let report: ScenarioReport
        /// What the page reported, by name, each a JSON value.
        let reports: [String: Any]
    }

    static func run(_ mode: String, _ variant: String, key: VirtualAuthenticator, on platform: Platform) async throws -> Run {
        // WEBAUTHN_SHOTS=<file>: the README's picture of the PIN question (by hand, never in CI).
        let shots = ProcessInfo.processInfo.environment["WEBAUTHN_SHOTS"].map { ["\($0)-\(platform.testDescription.filter { $0.isLetter || $0.isNumber })".lowercased() + ".png"] } ?? []
        let report = try await ScenarioRunner.run(
            EmbeddedScenario.webAuthn, in: platform.toolkit.program, arguments: [mode, variant] + shots,
            environment: ["WEBVIEWHOST_VIRTUAL_AUTHENTICATORS": key.socketPath], display: platform.keyboardDisplay)
        #expect(report[.gdkDisplay] == platform.gdkDisplayType, "GTK ran on another display than asked")
        let text = report[.webAuthnReports] ?? "{}"
        let raw = (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]) ?? [:]
        var reports: [String: Any] = [:]
        for (name, json) in raw { reports[name] = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) }
        return Run(report: report, reports: reports)
    }

    /// The page's `create`, then its `get`, each checked by the relying party.
    static func expectRegisteredAndSignedIn(_ run: Run, verification: String, _ context: String) async throws {
        let report = run.report
        #expect(report[.outcome] == "success", "\(context): \(report[.errorMessage] ?? "") \(run.reports)")
        #expect(report[.code] == "ok", "\(context): \(run.reports)")
        let challenges = report[.webAuthnChallenges] ?? []
        let origin = try #require(report[.webAuthnOrigin])
        let created = try #require(run.reports["created"] as? [String: Any], "\(context): \(run.reports)")
        #expect(created["isCredential"] as? Bool == true, "\(context): instanceof PublicKeyCredential")
        #expect(created["algorithm"] as? Int == -7)
        #expect((created["extensions"] as? [String: Any])?["credProps"] as? [String: Bool] == ["rk": true], "\(context): \(created)")
        let json = try #require(created["json"] as? [String: Any])
        let response = try #require(json["response"] as? [String: Any])
        let registered = try await RelyingPartyServer.check("register", [
            "rpId": "127.0.0.1", "origin": origin, "challenge": challenges.first ?? "", "userVerification": verification,
            "clientDataJSON": response["clientDataJSON"] as? String ?? "", "attestationObject": response["attestationObject"] as? String ?? "",
        ])
        #expect(registered["ok"] as? Bool == true, "\(context): \(registered)")
        #expect(registered["credentialId"] as? String == json["id"] as? String)
        let got = try #require((run.reports["got"] as? [String: Any])?["json"] as? [String: Any], "\(context): \(run.reports)")
        let assertion = try #require(got["response"] as? [String: Any])
        let verdict = try await RelyingPartyServer.check("authenticate", [
            "rpId": "127.0.0.1", "origin": origin, "challenge": challenges.last ?? "", "userVerification": verification,
            "credentialData": registered["credentialData"] as? String ?? "", "credentialId": got["id"] as? String ?? "",
            "clientDataJSON": assertion["clientDataJSON"] as? String ?? "", "authenticatorData": assertion["authenticatorData"] as? String ?? "",
            "signature": assertion["signature"] as? String ?? "",
        ])
        #expect(verdict["ok"] as? Bool == true, "\(context): \(verdict)")
    }

    @Test("A page registers a security key from a click and signs in with it: verified by a relying party that is not ours, in the library's window and a caller's view; a key that answers at once flashes no \"touch\" window",
          arguments: Platform.everywhere, ["window", "view"])
    func registerAndSignIn(_ platform: Platform, mode: String) async throws {
        let key = try VirtualAuthenticator()
        defer { key.stop() }
        let run = try await Self.run(mode, "register", key: key, on: platform)
        try await Self.expectRegisteredAndSignedIn(run, verification: "discouraged", "\(mode)")
        // A key that answers at once (this one gives presence without a touch) flashes no window:
        // "Touch your security key" waits 250 ms for the key, so a ceremony the page saw end
        // sooner never showed it (a loaded machine may make one slower: it may then show).
        let mapped = (run.report[.windowsMapped] ?? []).filter { $0 == "Touch your security key" }
        let durations = ["created", "got"].compactMap { (run.reports[$0] as? [String: Any])?["ms"] as? Double }
        #expect(durations.count == 2, "\(run.reports)")
        #expect(mapped.count <= durations.filter { $0 >= 240 }.count, "shown: \(mapped.count); the ceremonies took \(durations) ms")
        #expect(key.credentials().count == 1)
        #expect(key.credentials().first?.rpId == "127.0.0.1")
    }

    @Test("The site requires user verification: the library asks the key's PIN, a wrong one first, then says the tries left", arguments: Platform.everywhere)
    func pin(_ platform: Platform) async throws {
        let key = try VirtualAuthenticator(options: .init(protocolVersion: .ctap2_1, pin: "1234"))
        defer { key.stop() }
        let run = try await Self.run("window", "pin", key: key, on: platform)
        try await Self.expectRegisteredAndSignedIn(run, verification: "required", "pin")
        let texts = run.report[.dialogTexts] ?? []
        #expect(texts.count == 3, "asked for create (twice: a wrong PIN first) and for get: \(texts)")
        #expect(texts.dropFirst().first?.contains("7 tries are left") == true, "\(texts)")
        #expect(key.observations.wrongPINs == 1)
    }

    @Test("Refused as browsers refuse: create without a user gesture (NotAllowedError), another site's rpId (SecurityError); nothing reaches the key",
          arguments: Platform.everywhere, ["no-gesture", "foreign-rp"])
    func refused(_ platform: Platform, variant: String) async throws {
        let key = try VirtualAuthenticator()
        defer { key.stop() }
        let run = try await Self.run("window", variant, key: key, on: platform)
        let expected = variant == "no-gesture" ? "NotAllowedError" : "SecurityError"
        #expect(run.report[.code] == "error-\(expected)", "\(run.reports)")
        #expect(key.observations.ceremonies == 0, "the key was asked")
    }

    @Test("The page aborts while the key waits for a touch: the person was asked to touch it, the page gets AbortError, and the key receives CTAPHID_CANCEL", arguments: Platform.everywhere)
    func abort(_ platform: Platform) async throws {
        let key = try VirtualAuthenticator(options: .init(userPresence: .waitForTouch))
        defer { key.stop() }
        // The credential the page asks for is on the key: it waits for the touch that never comes.
        try key.addCredential(.init(credentialId: Data([9, 9, 9]), isResidentCredential: false, rpId: "127.0.0.1", signingKey: P256.Signing.PrivateKey()))
        let run = try await Self.run("window", "abort", key: key, on: platform)
        #expect(run.report[.code] == "error-AbortError", "\(run.reports)")
        #expect(await key.waitUntil(timeout: Patience.event) { $0.cancelsReceived >= 1 }, "\(key.observations)")
        // While the key waited (the page aborts once the scenario saw the question), the person was told to touch it.
        let mapped = run.report[.windowsMapped] ?? []
        #expect(mapped.contains("Touch your security key"), "\(mapped); \(run.report[.webAuthnSteps] ?? [])")
    }

    @Test("The page aborts while the library asks the key's PIN: AbortError, the question goes, the sign-in goes on", arguments: Platform.everywhere)
    func abortAtPIN(_ platform: Platform) async throws {
        let key = try VirtualAuthenticator(options: .init(protocolVersion: .ctap2_1, pin: "1234"))
        defer { key.stop() }
        try key.addCredential(.init(credentialId: Data([9, 9, 9]), isResidentCredential: false, rpId: "127.0.0.1", signingKey: P256.Signing.PrivateKey()))
        let run = try await Self.run("window", "abort-at-pin", key: key, on: platform)
        #expect(run.report[.outcome] == "success", "\(run.report[.errorMessage] ?? "")")
        #expect(run.report[.code] == "error-AbortError", "\(run.reports)")
        let open = run.report[.dialogTexts] ?? []
        #expect(!open.contains { $0.contains("PIN") }, "the PIN question is still up: \(open)")
        #expect(key.observations.wrongPINs == 0)
    }

    @Test("A cross-origin frame's call never reaches the key: the library's API is the top frame's only (as the README says)", arguments: Platform.everywhere)
    func crossOriginFrame(_ platform: Platform) async throws {
        let key = try VirtualAuthenticator()
        defer { key.stop() }
        let run = try await Self.run("window", "frame", key: key, on: platform)
        #expect(run.reports["frame"] != nil, "the frame ran: \(run.reports)")
        #expect(key.observations.ceremonies == 0, "the frame's call reached the key: \(run.reports)")
    }
}

extension WebAuthnTests {
    @Test("The page and relay scripts in a bare WebKitGTK 6.0 view, against a fake native side: the API's shape, validation, round trips, aborts, a page's overridden builtins, forged requests, frames, secure contexts (Tests/Fixtures/WebAuthn/harness)")
    func scriptsInABareView() async throws {
        // Its own X server (xvfb-run -a): the harness clicks with xdotool, which must not reach
        // another test's window.
        let harness = Checkout.fixture("WebAuthn").appendingPathComponent("harness/harness.js").path
        let child = try CleanSpawn(
            ["timeout", "120", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "gjs", "-m", harness],
            environment: ProcessInfo.processInfo.environment, processGroup: true)
        let collected = await child.collect()
        let output = String(decoding: collected.output + collected.errors, as: UTF8.self)
        let failed = output.split(separator: "\n").filter { $0.hasPrefix("FAIL") }
        #expect(collected.status == 0, "\(failed.joined(separator: "\n"))\n\(output.suffix(2000))")
        #expect(failed.isEmpty)
        #expect(output.contains(" passed, 0 failed"), "\(output.suffix(2000))")
    }
}
