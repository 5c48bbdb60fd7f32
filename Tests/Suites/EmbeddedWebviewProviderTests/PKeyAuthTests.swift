import Foundation
import ScenarioSupport
import Testing

/// Issue 32, part 2: Microsoft Entra ID's device challenge (PKeyAuth). A provider's 302 to
/// `urn:http-auth:PKeyAuth?...` is never loaded: the view answers at its SubmitUrl as a device
/// without a registered key (MSAL's answer), in the library's window and in a caller's view, on
/// GTK 3 and GTK 4; a malformed or unsafe challenge ends the session at once with a clear error.
extension EmbeddedWebviewProviderTests {
    @Test("A PKeyAuth challenge is answered at its SubmitUrl and the sign-in goes on", arguments: Platform.standard, ["window", "custom-view"])
    func pkeyAuthAnswered(_ platform: Platform, mode: String) async throws {
        let report = try await Self.scenario(.pkeyAuth, mode, "good", on: platform)
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        #expect(report[.code] == "after-pkeyauth")
        #expect(report[.pkeyAuthSubmits] == 1)
        let answer = try #require(report[.pkeyAuthAnswer])
        #expect(answer.hasPrefix("PKeyAuth Context=\"ctx-") && answer.hasSuffix("\", Version=\"1.0\""), "\(answer)")
        #expect(report[.callbackRequests] == 0, "the code never reached the network")
    }

    @Test("A PKeyAuth challenge without Version is answered as 1.0", arguments: Platform.x11)
    func pkeyAuthWithoutVersion(_ platform: Platform) async throws {
        let report = try await Self.scenario(.pkeyAuth, "window", "no-version", on: platform)
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
    }

    @Test(
        "A malformed or unsafe PKeyAuth challenge ends the session at once, saying why; nothing is sent",
        arguments: [
            ("no-submit", "names no SubmitUrl"), ("no-context", "has no Context"),
            ("http-submit", "neither https nor http on this machine"), ("other-scheme", "neither https nor http on this machine"),
            ("quote", "characters a header cannot carry"),
        ])
    func pkeyAuthRefused(_ variant: String, _ said: String) async throws {
        for platform in Platform.x11 {
            let started = ContinuousClock.now
            let report = try await Self.scenario(.pkeyAuth, "window", variant, on: platform)
            #expect(report[.outcome] == "invalidResponse", "\(platform) \(variant): \(report[.outcome] ?? "")")
            #expect(report[.errorMessage]?.contains("device challenge (PKeyAuth)") == true, "\(report[.errorMessage] ?? "")")
            #expect(report[.errorMessage]?.contains(said) == true, "\(report[.errorMessage] ?? "")")
            #expect(report[.pkeyAuthSubmits] == 0, "nothing was sent for a refused challenge")
            #expect(ContinuousClock.now - started < Patience.scaled(.seconds(25)), "ended at once, not at the 30 s timeout")
        }
    }

    @Test("PKeyAuth/1.0 ends the view's user agent when asked, and only then; a caller's view gets its own back", arguments: Platform.x11, ["window", "custom-view"])
    func pkeyAuthAdvertised(_ platform: Platform, mode: String) async throws {
        let advertised = try await Self.scenario(.pkeyAuth, mode, "good", "advertise", on: platform)
        #expect(advertised[.outcome] == "success", "\(advertised[.errorCode] ?? ""): \(advertised[.errorMessage] ?? "")")
        let agent = advertised[.userAgentAtAuthorize] ?? ""
        #expect(agent.hasSuffix(" PKeyAuth/1.0"), "\(agent)")
        let plain = try await Self.scenario(.pkeyAuth, mode, "good", on: platform)
        #expect(plain[.outcome] == "success")
        #expect(plain[.userAgentAtAuthorize]?.contains("PKeyAuth") == false, "\(plain[.userAgentAtAuthorize] ?? "")")
        if mode == "custom-view" {
            #expect(agent == "ExampleApp/2.1 (the app's own) PKeyAuth/1.0", "the app's own user agent, with the token")
            #expect(advertised[.callerUserAgentKept] == true, "the app's user agent came back")
            #expect(plain[.callerUserAgentKept] == true)
        }
    }

    @Test("A 401 whose WWW-Authenticate is a PKeyAuth challenge is answered once at the same page, and the sign-in goes on", arguments: Platform.standard, ["window", "custom-view"])
    func pkeyAuthIn401(_ platform: Platform, mode: String) async throws {
        let report = try await Self.scenario(.pkeyAuth, mode, "401", on: platform)
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        #expect(report[.code] == "after-pkeyauth")
        #expect(report[.pkeyAuthSubmits] == 1)
        let answer = try #require(report[.pkeyAuthAnswer])
        #expect(answer.hasPrefix("PKeyAuth Context=\"ctx-") && answer.hasSuffix("\", Version=\"1.0\""), "\(answer)")
    }

    @Test("A page that answers the device's answer with a 401 again ends the session at once, saying so", arguments: Platform.x11)
    func pkeyAuthRefusedIn401(_ platform: Platform) async throws {
        let started = ContinuousClock.now
        let report = try await Self.scenario(.pkeyAuth, "window", "401-refused", on: platform)
        #expect(report[.outcome] == "invalidResponse", "\(report[.outcome] ?? "")")
        #expect(report[.errorMessage]?.contains("refused the device's answer") == true, "\(report[.errorMessage] ?? "")")
        #expect(report[.pkeyAuthSubmits] == 1, "answered once, not in a loop")
        #expect(ContinuousClock.now - started < Patience.scaled(.seconds(25)), "ended at once, not at the 30 s timeout")
    }
}
