import Foundation
import ScenarioSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 33, part 1: Windows Integrated Authentication. A real MIT KDC on 127.0.0.1 and an intranet
/// sign-in page that asks `WWW-Authenticate: Negotiate` and accepts tokens with its keytab
/// (`Tests/Fixtures/Kerberos/negotiate_idp.py`, python3-gssapi), a ticket from the real `kinit`:
/// the embedded view signs in with the person's ticket without a word, in the library's window and
/// in a caller's view, on GTK 3 and GTK 4; when it cannot (no ticket, an expired one, an ephemeral
/// session, a plain-http host the app did not name), the session ends at once, saying why.
extension EmbeddedWebviewProviderTests {
    @Test("With a Kerberos ticket, a page that asks Negotiate signs the person in without a word", arguments: Platform.standard, ["window", "custom-view"])
    func negotiateWithTicket(_ platform: Platform, mode: String) async throws {
        let realm = try await KerberosRealm.start()
        defer { realm.stop() }
        try await realm.kinit(cache: "alice")
        let report = try await realm.scenario(mode, cache: "alice", on: platform)
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        #expect(report[.code] == "kerberos-alice", "the page's keytab accepted alice's ticket")
        #expect(report[.negotiateTrustedURIs] == realm.base)
        #expect(report[.negotiateAsked] == "", "nobody was asked for a password")
        let accepted = realm.requests.filter { $0["outcome"] == "accepted" }
        #expect(accepted.count == 1 && accepted.first?["scheme"] == "Negotiate" && accepted.first?["target"] == "HTTP/127.0.0.1@WVH.TEST",
                "\(realm.requests)")
        #expect(report[.callbackRequests] == 0)
    }

    @Test("Over https a ticket goes to the page without allowNegotiate(to:), as libsoup does by default (a caller's view)", arguments: Platform.x11)
    func negotiateOverHTTPS(_ platform: Platform) async throws {
        let realm = try await KerberosRealm.start()
        defer { realm.stop() }
        try await realm.kinit(cache: "alice")
        let report = try await realm.scenario("custom-view", trust: false, cache: "alice", on: platform, https: true)
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        #expect(report[.code] == "kerberos-alice")
        #expect(report[.negotiateTrustedURIs] == "", "no list: libsoup's default")
    }

    @Test(
        "When the view cannot answer Negotiate, the session ends at once, saying why",
        arguments: Platform.x11, [
            // (mode, session, trust, ticket, what the message says)
            ("window", "persistent", true, "none", "there is no Kerberos ticket to answer with (klist shows none)"),
            ("window", "persistent", true, "expired", "your Kerberos ticket has expired (klist shows when). Renew it with kinit"),
            ("window", "ephemeral", true, "valid", "ephemeral session (prefersEphemeralWebBrowserSession)"),
            ("window", "persistent", false, "valid", "EmbeddedWebviewProvider.allowNegotiate(to:)"),
            ("custom-view", "persistent", true, "none", "there is no Kerberos ticket to answer with"),
            ("custom-view", "persistent", true, "expired", "your Kerberos ticket has expired"),
        ])
    func negotiateUnanswered(_ platform: Platform, _ variant: (String, String, Bool, String, String)) async throws {
        let (mode, session, trust, ticket, said) = variant
        let realm = try await KerberosRealm.start()
        defer { realm.stop() }
        switch ticket {
        case "valid": try await realm.kinit(cache: "alice")
        case "expired":
            try await realm.kinit(cache: "alice", lifetime: "2s")
            // The ticket's end, as the KDC sees it (an event of the clock's, waited for with a deadline).
            let deadline = ContinuousClock.now + Patience.scaled(.seconds(30))
            while try await realm.kdcAcceptsTicket(cache: "alice") {
                guard ContinuousClock.now < deadline else {
                    Issue.record("the 2 s ticket did not expire")
                    return
                }
                try await Task.sleep(for: .milliseconds(200))
            }
        default: break
        }
        let started = ContinuousClock.now
        let report = try await realm.scenario(mode, session, trust: trust, cache: "alice", on: platform)
        #expect(report[.outcome] == "integratedAuthenticationUnavailable", "\(report[.outcome] ?? ""): \(report[.errorMessage] ?? "")")
        let message = report[.errorMessage] ?? ""
        #expect(message.contains("asked for Windows sign-in (Kerberos"), "\(message)")
        #expect(message.contains(said), "\(message)")
        #expect(message.contains("127.0.0.1:"), "the message names the host: \(message)")
        #expect(ContinuousClock.now - started < Patience.scaled(.seconds(35)), "ended at once, not at the 40 s timeout")
        #expect(realm.requests.filter { $0["outcome"] == "accepted" }.isEmpty)
        #expect(!realm.requests.isEmpty, "the page was asked")
    }

    @Test("A valid ticket the page's realm gives no service ticket for (no HTTP/127.0.0.1): the session ends at once, naming the principal", arguments: Platform.x11)
    func negotiateWithoutServicePrincipal(_ platform: Platform) async throws {
        let realm = try await KerberosRealm.start(services: "localhost")
        defer { realm.stop() }
        try await realm.kinit(cache: "alice")
        let started = ContinuousClock.now
        let report = try await realm.scenario("window", cache: "alice", on: platform)
        #expect(report[.outcome] == "integratedAuthenticationUnavailable", "\(report[.outcome] ?? ""): \(report[.errorMessage] ?? "")")
        let message = report[.errorMessage] ?? ""
        #expect(message.contains("it did not accept your Kerberos ticket") && message.contains("HTTP/127.0.0.1"), "\(message)")
        #expect(ContinuousClock.now - started < Patience.scaled(.seconds(35)), "ended at once, not at the 40 s timeout")
    }

    @Test("A page that offers Basic beside Negotiate, without a ticket: WebKit asks for the password, and the answer signs in", arguments: Platform.x11)
    func negotiateOrBasic(_ platform: Platform) async throws {
        let realm = try await KerberosRealm.start()
        defer { realm.stop() }
        let report = try await realm.scenario("custom-view", extra: ["basic"], cache: "alice", on: platform)
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        #expect(report[.code] == "basic-alice")
        // WEBKIT_AUTHENTICATION_SCHEME_HTTP_BASIC is 2.
        #expect(report[.negotiateAsked] == "2", "\(report[.negotiateAsked] ?? "")")
    }

    @Test("WebKit's credentials dialog shows inside the library's window, in the person's language, and its answer signs in", arguments: Platform.x11)
    func credentialsDialogInWindow(_ platform: Platform) async throws {
        let realm = try await KerberosRealm.start()
        defer { realm.stop() }
        let report = try await realm.scenario("window", extra: ["dialog"], cache: "alice", language: "de", on: platform)
        #expect(report[.outcome] == "success", "\(report[.errorCode] ?? ""): \(report[.errorMessage] ?? "")")
        #expect(report[.code] == "basic-alice")
        let texts = report[.dialogTexts] ?? []
        #expect(texts.contains("Benutzername") && texts.contains("Passwort"), "the dialog is German: \(texts)")
        #expect(texts.contains { $0.contains("WVH intranet") }, "it names the page's realm: \(texts)")
        #expect(report[.dialogButtons]?.contains("_Abbrechen") == true, "\(report[.dialogButtons] ?? [])")
        #expect(report[.negotiateDialogToplevels] == 0, "the dialog is inside the library's window, no window of its own")
    }

    @Test("allowNegotiate(to:) refuses an origin that is not http(s) with a host, and any call after the first window, saying why", arguments: Platform.x11)
    func allowNegotiateRefusals(_ platform: Platform) async throws {
        let realm = try await KerberosRealm.start()
        defer { realm.stop() }
        let report = try await realm.scenario("window", trust: false, extra: [], cache: "alice", on: platform, refusals: true)
        let refusals = report[.negotiateRefusals] ?? []
        #expect(refusals.count == 4, "\(refusals)")
        for refusal in refusals.prefix(3) {
            #expect(refusal.hasPrefix("invalidParameters: allowNegotiate(to:) takes http or https origins with a host"), "\(refusal)")
        }
        #expect(refusals.last?.hasPrefix("invalidParameters: allowNegotiate(to:) was called after the first sign-in window was made") == true,
                "\(refusals)")
        #expect(report[.negotiateTrustedURIs] == "", "nothing refused reached the environment")
    }
}

extension KerberosRealm {
    /// Runs the `negotiate` scenario with this realm's environment and the ticket cache `cache`.
    func scenario(
        _ mode: String, _ session: String = "persistent", trust: Bool = true, extra: [String] = [], cache: String,
        language: String? = nil, on platform: Platform, refusals: Bool = false, https: Bool = false
    ) async throws -> ScenarioReport {
        let home = EmbeddedWebviewProviderTests.temporaryFolder()
        var environment = environment(cache: cache)
        environment["NEGOTIATE_CERTIFICATE"] = certificate
        if let language {
            // As LocalizedWindowsTests: the person's language, on a locale every machine has.
            environment["LANGUAGE"] = language
            environment["LC_ALL"] = "C.UTF-8"
        }
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        // No list of the tests' own: what the scenario's allowNegotiate(to:) sets is all there is.
        environment["SOUP_GSSAPI_TRUSTED_URIS"] = nil
        let report = try await ScenarioRunner.run(
            EmbeddedScenario.negotiate, in: platform.toolkit.program,
            arguments: [mode, session, https ? httpsBase : base, refusals ? "refusals" : trust ? "trust" : "no-trust"] + extra,
            environment: environment,
            display: platform.display)
        #expect(report[.gdkDisplay] == platform.gdkDisplayType, "GTK ran on another display than asked")
        return report
    }
}
