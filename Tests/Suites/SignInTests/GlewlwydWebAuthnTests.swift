import Foundation
import ScenarioSupport
import Testing
import TestTraits
import WebviewHostTestKit

/// A security key at a real relying party (issue 42): Glewlwyd's WebAuthn scheme, its own login
/// and profile pages in the library's window (`security-key` of SignInScenarios, GTK 3, and of
/// SignInScenariosGTK4), the key
/// the test's ``VirtualAuthenticator`` beneath libfido2. Alice registers the key on her profile
/// page (a real Return key press on its "New component" button, on a private X server), then
/// signs in to a client whose scope asks for her password and the key.
@Suite(.serialized, .glewlwyd, .desktop)
struct GlewlwydWebAuthnTests {
    let server: GlewlwydServer

    init() throws {
        server = try #require(GlewlwydServer.current, "the suite trait starts Glewlwyd")
    }

    var securityKeyClientID: String { server.values["CLIENT_ID_SECURITY_KEY"] ?? "webviewhost-security-key" }
    var keyScope: String { server.values["KEY_SCOPE"] ?? "security-key" }

    /// The scenario program of each toolkit.
    static let toolkitPrograms = ["SignInScenarios", "SignInScenariosGTK4"]

    func scenario(_ arguments: [String], key: VirtualAuthenticator, program: String) async throws -> ScenarioReport {
        try await ScenarioRunner.run(
            SignInScenario.securityKey, in: program, arguments: arguments,
            environment: ["ISSUER": server.issuer.absoluteString, "WEBVIEWHOST_VIRTUAL_AUTHENTICATORS": key.socketPath],
            timeout: Patience.scaled(.seconds(200)), display: .privateX11)
    }

    /// Alice registers `key` on her profile page; the registration's checks.
    func register(_ key: VirtualAuthenticator, program: String) async throws {
        let report = try await scenario(["register", server.clientID], key: key, program: program)
        #expect(report[.outcome] == "registered", "\(report[.message] ?? "") titles: \(report[.titles] ?? []) loads: \(report[.loads] ?? [])")
        #expect(report[.titles]?.contains("wvh:register-ready") == true, "the profile page offered 'New component'")
        #expect(key.credentials().count == 1)
        #expect(key.credentials().first?.rpId == "127.0.0.1", "the rpId a browser derives from the page's origin")
        #expect(key.observations.credentialsMade == 1)
    }

    func signIn(with key: VirtualAuthenticator, program: String) async throws -> ScenarioReport {
        try await scenario(["sign-in", securityKeyClientID, keyScope], key: key, program: program)
    }

    @Test("Alice registers a security key on Glewlwyd's profile page and signs in with password and key: Glewlwyd verifies the assertion, the app gets verified tokens",
          arguments: toolkitPrograms)
    func registersAndSignsInWithTheKey(program: String) async throws {
        let key = try VirtualAuthenticator()
        defer { key.stop() }
        try await register(key, program: program)
        let counted = key.credentials().first?.signCount ?? 0

        let report = try await signIn(with: key, program: program)
        let context = "\(program): \(report[.message] ?? "") titles: \(report[.titles] ?? [])"
        #expect(report[.outcome] == "success", "\(context)")
        #expect(report[.titles]?.contains("wvh:password") == true, "\(context)")
        #expect(report[.titles]?.contains("wvh:key") == true, "the page's WebAuthn step was shown: \(context)")
        #expect(report[.titles]?.contains("wvh:key-error") == false, "\(context)")
        #expect(report[.name] == server.userName)
        #expect(report[.username] == server.userEmail)
        #expect(report[.issuer] == server.issuer.absoluteString)
        #expect(report[.subject]?.isEmpty == false)
        #expect(report[.idTokenSubject] == report[.subject])
        #expect(report[.idTokenAudience] == [securityKeyClientID])
        #expect(report[.scopes]?.contains(keyScope) == true, "Glewlwyd granted the scope that needs the key: \(report[.scopes] ?? [])")
        #expect((report[.accessTokenLength] ?? 0) > 0)
        #expect(key.observations.assertionsMade >= 1, "\(key.observations)")
        #expect((key.credentials().first?.signCount ?? 0) > counted, "the key's sign count grew")
    }

    @Test("Without the key's credential, or when the person does not touch the key: Glewlwyd's page says so, no tokens, the sign-in ends when she gives up",
          arguments: toolkitPrograms)
    func theKeyRefusedIsNoSilentSuccess(program: String) async throws {
        // This key attests with format `none` (the first test's: `packed` self attestation).
        let key = try VirtualAuthenticator(options: .init(attestation: .none))
        defer { key.stop() }
        try await register(key, program: program)

        // Another key, which has no credential for Glewlwyd.
        let other = try VirtualAuthenticator()
        defer { other.stop() }
        let unknown = try await signIn(with: other, program: program)
        // The person present but not consenting (automation's isUserConsenting false).
        key.setUserConsenting(false)
        let refused = try await signIn(with: key, program: program)
        for (name, report) in [("another key", unknown), ("not consenting", refused)] {
            let context = "\(program), \(name): \(report[.outcome] ?? "") \(report[.message] ?? "") titles: \(report[.titles] ?? [])"
            #expect(report[.titles]?.contains("wvh:key") == true, "\(context)")
            #expect(report[.titles]?.contains("wvh:key-error") == true, "Glewlwyd's page showed its error: \(context)")
            #expect(report[.outcome] == "canceled", "\(context)")
            #expect(report[.subject] == nil, "\(context)")
            #expect((report[.secondsToEnd] ?? 99) <= 10, "\(context)")
        }
        #expect(other.observations.assertionsMade == 0)
        #expect(key.observations.assertionsMade == 0, "the key signed nothing without consent: \(key.observations)")
    }
}
