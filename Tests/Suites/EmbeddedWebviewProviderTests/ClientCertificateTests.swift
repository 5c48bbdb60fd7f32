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
        let report = try await Self.scenario(.clientCertificate, mode, "none", on: platform)
        // Not `timedOut`: the scenario's session would end so after 30 s (scaled) if the request waited.
        #expect(report[.outcome] == "clientCertificateRequired", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        let message = report[.errorMessage] ?? ""
        #expect(message.contains("asked for a client certificate") && message.contains("WebviewParameters.clientCertificate"), "\(message)")
        #expect(!message.contains("network connection"), "no advice about the network: \(message)")
        #expect(report[.certAuthRequests] == 0)
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
        "A token that refuses the PIN the app gave ends the session at once, saying so (no second, locking, try)",
        arguments: [("pkcs11-wrong-pin", "refused the app's PIN")])
    func clientCertificateAppPINRefused(_ variant: String, _ said: String) async throws {
        for platform in Platform.x11 {
            let report = try await Self.scenario(.clientCertificate, "window", variant, on: platform)
            #expect(report[.outcome] == "clientCertificateRequired", "\(platform) \(variant): \(report[.errorMessage] ?? "")")
            let message = report[.errorMessage] ?? ""
            #expect(message.contains(said), "\(message)")
            #expect(!message.contains("1234") && !message.contains("0000"), "no PIN in the message: \(message)")
            #expect(report[.certAuthRequests] == 0)
        }
    }

    @Test(
        "With no certificate from the app, the person chooses one on their token and types its PIN (real key events)",
        arguments: Platform.x11, ["window", "custom-view"])
    func clientCertificateChosenOnToken(_ platform: Platform, mode: String) async throws {
        let report = try await Self.scenario(.clientCertificate, mode, "token", on: platform)
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        #expect(report[.code]?.contains("CN=Kiosk 7") == true, "\(report[.code] ?? "")")
        let questions = report[.certificateQuestions] ?? []
        // The chooser names the host and the certificate (subject, issuer, expiry, token); then the PIN dialog.
        #expect(questions.first == "window: Choose a certificate", "\(questions)")
        #expect(questions.contains { $0.contains("127.0.0.1 asks for a certificate") }, "\(questions)")
        #expect(questions.contains { $0.hasPrefix("Kiosk 7\nIssued by WebviewHost Test CA, expires ") && $0.contains("on “WVH-") }, "\(questions)")
        #expect(questions.contains { $0.hasPrefix("window: Enter the PIN of “WVH-") }, "\(questions)")
        #expect(questions.contains { $0.contains("asks for your certificate “Kiosk 7”") }, "\(questions)")
    }

    @Test("A wrong PIN asks again, saying so; the right one then signs in", arguments: Platform.x11)
    func clientCertificateWrongPINAsksAgain(_ platform: Platform) async throws {
        let report = try await Self.scenario(.clientCertificate, "window", "token-wrong-pin", on: platform)
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        let questions = report[.certificateQuestions] ?? []
        let pinDialogs = questions.indices.filter { questions[$0].hasPrefix("window: Enter the PIN of") }
        try #require(pinDialogs.count == 2, "\(questions)")
        #expect(!questions[pinDialogs[0]..<pinDialogs[1]].contains { $0.contains("The PIN was wrong") }, "the first asks plainly: \(questions)")
        #expect(questions[pinDialogs[1]...].contains { $0.contains("The PIN was wrong. Try again.") }, "\(questions)")
    }

    @Test("Three wrong PINs end the sign-in with clientCertificateRequired, saying so, before a fourth try", arguments: Platform.x11)
    func clientCertificateThreeWrongPINs(_ platform: Platform) async throws {
        let report = try await Self.scenario(.clientCertificate, "window", "token-wrong-pin-thrice", on: platform)
        #expect(report[.outcome] == "clientCertificateRequired", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        #expect(report[.errorMessage]?.contains("refused 3 PINs") == true, "\(report[.errorMessage] ?? "")")
        let questions = report[.certificateQuestions] ?? []
        #expect(questions.filter { $0.hasPrefix("window: Enter the PIN of") }.count == 3, "three PIN dialogs, no fourth: \(questions)")
        #expect(report[.certAuthRequests] == 0, "nothing reached the page that asked")
    }

    @Test(
        "Cancel in the chooser or the PIN dialog ends the session userCanceled, nothing sent",
        arguments: Platform.x11, ["token-cancel-chooser", "token-cancel-pin"])
    func clientCertificateQuestionCancelled(_ platform: Platform, variant: String) async throws {
        let report = try await Self.scenario(.clientCertificate, "window", variant, on: platform)
        #expect(report[.outcome] == "userCanceled", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        #expect(report[.certAuthRequests] == 0)
    }

    @Test("The app's token certificate without its PIN: the library's PIN dialog asks", arguments: Platform.x11)
    func clientCertificateAppTokenPINAsked(_ platform: Platform) async throws {
        let report = try await Self.scenario(.clientCertificate, "window", "pkcs11-no-pin", on: platform)
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        #expect(report[.certificateQuestions]?.first?.hasPrefix("window: Enter the PIN of “WVH-") == true, "\(report[.certificateQuestions] ?? [])")
    }

    /// `token-twice`: the second session is not asked; `token-twice-isolated`: the first session
    /// ran in an isolated registry, whose choices are its own, and the second (the process's) is asked again.
    @Test(
        "The person's choice is remembered for the host for the rest of the app's run, in the registry scope it was made in",
        arguments: product(Platform.x11, [("token-twice", 1), ("token-twice-isolated", 2)]))
    func clientCertificateChoiceRemembered(_ platform: Platform, _ variant: (name: String, choosers: Int)) async throws {
        let report = try await Self.scenario(.clientCertificate, "window", variant.name, on: platform)
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        let questions = report[.certificateQuestions] ?? []
        #expect(questions.filter { $0 == "window: Choose a certificate" }.count == variant.choosers, "\(variant.name): \(questions)")
        #expect(report[.secondCertAuthRequests] == 1, "the second sign-in reached the endpoint with the certificate")
    }

    @Test("The app answers itself: its chooser gets the host and the token's certificates, and its answer is used", arguments: Platform.x11)
    func clientCertificateAppChooser(_ platform: Platform) async throws {
        for variant in ["app-chooser", "app-chooser-file"] {
            let report = try await Self.scenario(.clientCertificate, "custom-view", variant, on: platform)
            #expect(report[.outcome] == "success", "\(variant): \(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
            #expect(report[.code]?.contains("CN=Kiosk 7") == true, "\(variant): \(report[.code] ?? "")")
            let asked = report[.appChooserRequests] ?? []
            #expect(asked.count == 1 && asked[0].hasPrefix("127.0.0.1: CN=Kiosk 7,O=WebviewHost Tests on WVH-"), "\(variant): \(asked)")
            #expect(report[.certificateQuestions] == [], "no question of the library's: \(report[.certificateQuestions] ?? [])")
        }
    }

    @Test("The app's chooser answering nothing ends the session userCanceled", arguments: Platform.x11)
    func clientCertificateAppChooserCancels(_ platform: Platform) async throws {
        let report = try await Self.scenario(.clientCertificate, "window", "app-chooser-cancel", on: platform)
        #expect(report[.outcome] == "userCanceled", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        #expect(report[.errorMessage]?.contains("chooser gave no certificate for 127.0.0.1") == true, "\(report[.errorMessage] ?? "")")
        #expect(report[.certAuthRequests] == 0)
    }
}
