import Foundation
import ScenarioSupport
import Synchronization
import Testing
import WebviewHost

@testable import SignIn

/// The device authorization grant against the real Glewlwyd server (its OIDC plugin with
/// `auth-type-device-enabled`; the person's side over Glewlwyd's REST API, as its own tests do):
/// a code approved on the "other device" gives verified tokens kept in the cache, which
/// `acquireTokenSilent` renews and msal-python reads; a code nobody approves is cancelled.
extension GlewlwydSignInTests {
    func deviceApp(storage: any TokenCacheStorage) throws -> PublicClientApplication {
        try PublicClientApplication(configuration: .init(
            clientID: server.deviceClientID, authority: server.issuer, redirectURI: URL(string: "http://127.0.0.1/callback")!,
            defaultScopes: ["openid", "profile", "email", "offline_access"], tokenCacheStorage: storage))
    }

    @Test("Device code at Glewlwyd: approved on the other device, verified tokens in the cache, renewed silently, read by msal-python")
    @MainActor
    func glewlwydDeviceCode() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry { try await glewlwydDeviceCodeIsolated() }
    }

    @MainActor
    func glewlwydDeviceCodeIsolated() async throws {
        let directory = try TokenCacheScenario.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("org.example.App/cache.json")
        let app = try deviceApp(storage: FileTokenCacheStorage(fileURL: file))
        let server = server
        let approval = Mutex<Task<String, any Error>?>(nil)
        let result = try await app.acquireTokenWithDeviceCode(with: DeviceCodeParameters(scopes: [], display: .app { challenge in
            // The person, on their phone: signs in at the verification page and continues.
            approval.withLock { $0 = Task { try await server.approveDeviceCode(challenge.userCode) } }
        }))
        let location = try await approval.withLock { $0 }!.value
        #expect(location.contains("prompt=deviceComplete"), "Glewlwyd's device page: \(location)")
        #expect(result.account.username == server.userEmail)
        #expect(result.idTokenClaims.issuer == server.issuer.absoluteString)
        #expect(result.refreshToken != nil)
        #expect(result.tokenCacheError == nil)
        let renewed = try await app.acquireTokenSilent(with: SilentTokenParameters(scopes: [], account: result.account, forceRefresh: true))
        #expect(renewed.accessToken != result.accessToken)
        let found = try await TokenCacheScenario.msalPython(
            ["read", file.path, "--home-account-id", result.account.subject, "--client-id", server.deviceClientID])
        let accounts = try #require(found["accounts"] as? [[String: Any]])
        #expect(accounts.map { $0["username"] as? String } == [server.userEmail], "msal-python finds the account")
    }

    @Test("Device code at Glewlwyd: a code nobody approves is cancelled, and polling stops")
    @MainActor
    func glewlwydDeviceCodeCancelled() async throws {
        try await WebviewProviderRegistry.withIsolatedRegistry { try await glewlwydDeviceCodeCancelledIsolated() }
    }

    @MainActor
    func glewlwydDeviceCodeCancelledIsolated() async throws {
        let app = try deviceApp(storage: InMemoryTokenCacheStorage())
        let shown = Mutex<DeviceCodeChallenge?>(nil)
        let signIn = Task { @MainActor in
            try await app.acquireTokenWithDeviceCode(with: DeviceCodeParameters(scopes: [], display: .app { challenge in shown.withLock { $0 = challenge } }))
        }
        while shown.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(20)) }
        let challenge = try #require(shown.withLock { $0 })
        #expect(challenge.verificationURI.absoluteString == server.issuer.absoluteString + "/device")
        #expect(challenge.verificationURIComplete?.absoluteString.contains(challenge.userCode) == true)
        #expect(challenge.interval == .seconds(5), "Glewlwyd's device-authorization-interval")
        app.cancelCurrentInteractiveSession()
        do {
            _ = try await signIn.value
            Issue.record("not cancelled")
        } catch let error as WebAuthError {
            #expect(error.code == .canceled)
        }
    }
}

extension GlewlwydSignInTests {
    /// The library's window end to end: the phone reads the QR code off the screen and approves
    /// at Glewlwyd, the window closes and the app has alice's tokens; Cancel ends it at once.
    @Test("Device code in the library's window at Glewlwyd: the QR code on the screen approved from a phone, or Cancel", arguments: ["approve", "cancel"])
    func glewlwydDeviceCodeWindow(_ how: String) async throws {
        let shot = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-device-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: shot) }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        // A display of its own: the QR code is read off the whole screen.
        let report = try await scenario(.deviceCodeWindow, [server.deviceClientID, how, shot.path], desktop: desktop, display: .privateX11)
        #expect(report[.deviceWindowShown] == true)
        let decoded = try #require(report[.qrDecoded])
        #expect(decoded.hasPrefix(server.issuer.absoluteString + "/device?code="), "the QR code is the verification link with the code: \(decoded)")
        if how == "approve" {
            #expect(report[.approval]?.contains("prompt=deviceComplete") == true, "\(report[.approval] ?? "")")
            #expect(report[.outcome] == "success", "\(report[.message] ?? "")")
            #expect(report[.username] == server.userEmail)
        } else {
            #expect(report[.outcome] == "canceled", "\(report[.message] ?? "")")
            #expect((report[.secondsToEnd] ?? 99) < 2, "Cancel ends the sign-in at once, not at the next poll")
        }
        #expect(report[.deviceWindowGone] == true)
    }
}
