import Foundation
import ScenarioSupport
import Testing

/// Issue 32, part 1: a sign-in server that requires a client certificate in the TLS handshake
/// (a real libsoup HTTPS server checking it against a test CA). The view offers the app's
/// certificate (PEM files, one PEM file, PKCS #12), in the library's window and in a caller's view,
/// on GTK 3 and GTK 4; with none, or one it cannot use, the session ends at once with an error
/// that says so (not `network`, not a timeout).
extension EmbeddedWebviewProviderTests {
    @Test("The app's client certificate reaches the server that requires it", arguments: Platform.x11, ["window", "custom-view"])
    func clientCertificateGiven(_ platform: Platform, mode: String) async throws {
        for variant in ["pem", "pem-one-file", "pkcs12"] {
            let report = try await Self.scenario(.clientCertificate, mode, variant, on: platform)
            #expect(report[.outcome] == "success", "\(variant): \(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
            // The server's redirect carries the subject it got from the handshake.
            #expect(report[.code]?.contains("CN=Kiosk 7") == true, "\(variant): \(report[.code] ?? "")")
            #expect(report[.callbackRequests] == 0, "the code never reached the network")
        }
    }

    @Test("A server asking for a client certificate the app did not give ends the session at once, saying so", arguments: Platform.x11, ["window", "custom-view"])
    func clientCertificateMissing(_ platform: Platform, mode: String) async throws {
        let started = ContinuousClock.now
        let report = try await Self.scenario(.clientCertificate, mode, "none", on: platform)
        #expect(report[.outcome] == "clientCertificateRequired", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        let message = report[.errorMessage] ?? ""
        #expect(message.contains("asked for a client certificate") && message.contains("WebviewParameters.clientCertificate"), "\(message)")
        #expect(!message.contains("network connection"), "no advice about the network: \(message)")
        #expect(report[.certAuthRequests] == 0)
        #expect(ContinuousClock.now - started < Patience.scaled(.seconds(25)), "ended at once, not at the 30 s timeout")
    }

    @Test(
        "A client certificate the app gives that cannot be used ends the session before any page, saying why",
        arguments: [("no-key", "No PEM-encoded private key"), ("pkcs12-wrong-password", "client.p12")])
    func clientCertificateUnusable(_ variant: String, _ said: String) async throws {
        for platform in Platform.x11 {
            let report = try await Self.scenario(.clientCertificate, "window", variant, on: platform)
            #expect(report[.outcome] == "invalidParameters", "\(platform) \(variant): \(report[.outcome] ?? "")")
            let message = report[.errorMessage] ?? ""
            #expect(message.contains("The client certificate the app gave") && message.contains(said), "\(message)")
            #expect(report[.authorizeRequests] == 0, "no page was loaded")
        }
    }

    @Test("The app's certificate on a PKCS #11 token (SoftHSM2 through p11-kit) reaches the server, the token's PIN given", arguments: Platform.x11, ["window", "custom-view"])
    func clientCertificateOnToken(_ platform: Platform, mode: String) async throws {
        let report = try await Self.scenario(.clientCertificate, mode, "pkcs11", on: platform)
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        #expect(report[.code]?.contains("CN=Kiosk 7") == true, "\(report[.code] ?? "")")
    }

    @Test(
        "A token that asks for a PIN the app did not give, or refuses it, ends the session at once, saying so",
        arguments: [("pkcs11-no-pin", "asked for its PIN and the app gave none"), ("pkcs11-wrong-pin", "refused the app's PIN")])
    func clientCertificateTokenPIN(_ variant: String, _ said: String) async throws {
        for platform in Platform.x11 {
            let started = ContinuousClock.now
            let report = try await Self.scenario(.clientCertificate, "window", variant, on: platform)
            #expect(report[.outcome] == "clientCertificateRequired", "\(platform) \(variant): \(report[.errorMessage] ?? "")")
            let message = report[.errorMessage] ?? ""
            #expect(message.contains(said), "\(message)")
            #expect(!message.contains("1234") && !message.contains("0000"), "no PIN in the message: \(message)")
            #expect(report[.certAuthRequests] == 0)
            #expect(ContinuousClock.now - started < Patience.scaled(.seconds(25)), "ended at once, not at the 30 s timeout")
        }
    }
}
