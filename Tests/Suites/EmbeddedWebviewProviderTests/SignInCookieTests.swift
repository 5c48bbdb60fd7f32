import Foundation
import ScenarioSupport
import Testing

/// Issue 32, part 3: a broker's single-sign-on cookie (`WebviewParameters.signInCookies`) in the
/// embedded view, on GTK 3 and GTK 4. The provider's authorization page gets it before its first
/// load; the same server under another host name never does; a later sign-in does not send it;
/// the cookie file never holds it; a caller's view gets it only when the app allows it.
extension EmbeddedWebviewProviderTests {
    @Test("A sign-in cookie reaches the authorization page's host only, for that session only", arguments: Platform.standard, ["window", "ephemeral"])
    func signInCookieInTheLibrarysWindow(_ platform: Platform, mode: String) async throws {
        let report = try await Self.scenario(.signInCookies, mode, on: platform)
        let value = try #require(report[.signInCookieValue])
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        #expect(report[.code] == "with-cookie")
        let sent = report[.cookieAtAuthorize] ?? ""
        #expect(sent.contains("x-ms-RefreshTokenCredential=\(value)"), "the first load carried it: \(sent)")
        #expect(report[.cookieElsewhere]?.contains(value) == false, "another host never gets it: \(report[.cookieElsewhere] ?? "")")
        #expect(report[.cookieElsewhere]?.contains("marker=kept") == false, "(and the page's own cookie is host-only too)")
        #expect(report[.outcome.prefixed(by: "later.")] == "success")
        let later = report[.cookieLater] ?? ""
        // The persistent store keeps the page's own cookie; the ephemeral one is emptied before each session.
        #expect(later.contains("marker=kept") == (mode == "window"), "the page's own cookie: \(later)")
        #expect(!later.contains("x-ms-RefreshTokenCredential"), "the sign-in cookie left with its session: \(later)")
        if mode == "window" {
            #expect(report[.signInCookieOnDisk] == "no", "the cookie file never holds it: \(report[.signInCookieOnDisk] ?? "")")
        }
    }

    @Test("A caller's view gets a sign-in cookie only when the app allows it", arguments: Platform.x11, ["custom-view", "custom-view-allowed"])
    func signInCookieInACallersView(_ platform: Platform, mode: String) async throws {
        let report = try await Self.scenario(.signInCookies, mode, on: platform)
        let value = try #require(report[.signInCookieValue])
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        let sent = report[.cookieAtAuthorize] ?? ""
        if mode == "custom-view-allowed" {
            #expect(sent.contains("x-ms-RefreshTokenCredential=\(value)"), "\(sent)")
        } else {
            #expect(!sent.contains("x-ms-RefreshTokenCredential"), "the app's store is the app's: \(sent)")
        }
        #expect(report[.cookieElsewhere]?.contains(value) == false)
        #expect(report[.outcome.prefixed(by: "later.")] == "success")
        #expect(report[.cookieLater]?.contains("x-ms-RefreshTokenCredential") == false, "taken out of the app's store after: \(report[.cookieLater] ?? "")")
    }

    @Test("A sign-in cookie that cannot be sent ends the session at once with invalidParameters, nothing loaded", arguments: Platform.x11)
    func signInCookieThatCannotBeSent(_ platform: Platform) async throws {
        let report = try await Self.scenario(.signInCookies, "window", "bad", on: platform)
        #expect(report[.outcome] == "invalidParameters", "\(report[.outcome] ?? "")")
        #expect(report[.errorMessage]?.contains("x-ms-RefreshTokenCredential has an empty value or characters a cookie value cannot have") == true, "\(report[.errorMessage] ?? "")")
        #expect(report[.cookieAtAuthorize] == "", "no page was loaded")
    }
}
