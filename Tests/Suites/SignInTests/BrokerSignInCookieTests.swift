import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// Issue 32, part 3: on a device where Microsoft's identity broker runs (the D-Bus double), an
/// embedded sign-in at an authority the library takes for Entra ID (fake_entra.py, with
/// `cloud_instance_name`) carries the broker's PRT SSO cookie to the authorization endpoint.
/// The broker is registered but not used for the sign-in itself (`usesTokenBroker` is off), as
/// for an app whose redirect URI is not registered for brokering. A broker that fails or has
/// nobody leaves the sign-in as it is.
@Suite(.serialized, .desktop) struct BrokerSignInCookieTests {
    struct Run {
        let report: ScenarioReport
        /// The Cookie header of each authorization request fake_entra received ("none" for none).
        let cookies: [String]
        let brokerRequests: [BrokerDouble.Request]
        /// The User-Agent of each authorization request.
        let userAgents: [String]
    }

    /// `scenario`: the double's, as JSON (see broker_double.py).
    func run(_ scenario: String, _ arguments: [String] = [], plain: Bool = false) async throws -> Run {
        let entra = try await ClientInfoSignInTests.FakeEntra.start(plain: plain)
        defer { entra.stop() }
        let double = try await BrokerDouble.start(json: Data(scenario.utf8))
        defer { double.stop() }
        let desktop = try TestDesktop(browserCommand: nil)
        defer { desktop.remove() }
        var environment = desktop.environment
        environment["ISSUER"] = entra.facts["issuer"]
        environment["BROKER_BUS"] = double.address
        let report = try await ScenarioRunner.run(
            SignInScenario.brokerCookie, arguments: ["entra-app"] + arguments, environment: environment, timeout: .seconds(110), display: .x11)
        let log = (try? String(contentsOf: entra.directory.appendingPathComponent("cookies.log"), encoding: .utf8)) ?? ""
        let agents = (try? String(contentsOf: entra.directory.appendingPathComponent("user-agents.log"), encoding: .utf8)) ?? ""
        return Run(
            report: report, cookies: log.split(separator: "\n").map(String.init), brokerRequests: double.requests,
            userAgents: agents.split(separator: "\n").map(String.init))
    }

    @Test("The broker's PRT SSO cookie reaches the authorization endpoint; the request is linux-entra-sso's, key for key", arguments: ["2.0.2", "2.0.1"])
    func prtCookieSent(shape: String) async throws {
        let run = try await run("{\"shape\": \"\(shape)\"}")
        #expect(run.report[.outcome] == "success", "\(run.report[.message] ?? "")")
        let asked = try #require(run.brokerRequests.first { $0.method == "acquirePrtSsoCookie" })
        let request = asked.object
        let endpoint = try #require(request["ssoUrl"] as? String)
        #expect(endpoint.hasSuffix("/oauth2/v2.0/authorize") && endpoint.hasPrefix("http://127.0.0.1:"), "the sign-in page: \(endpoint)")
        let capture = try #require(try MicrosoftIdentityBrokerTests.capture("prtSsoCookieRequest")["request"] as? [String: Any])
        #expect(Set(request.keys) == Set(capture.keys))
        let parameters = try #require(request["authParameters"] as? [String: Any])
        #expect(Set(parameters.keys) == Set((capture["authParameters"] as? [String: Any] ?? [:]).keys))
        #expect(parameters["authorizationType"] as? Int == 8)
        #expect(parameters["clientId"] as? String == "entra-app", "the app's own client")
        #expect((request["account"] as? [String: Any])?["username"] as? String == "alice@contoso.example", "the broker's default account")
        #expect(run.cookies.count == 1)
        let cookie = try #require(run.cookies.first)
        #expect(cookie.hasPrefix("x-ms-RefreshTokenCredential=eyJ"), "the broker's cookie, as it gave it: \(cookie)")
    }

    @Test(
        "Without a usable broker cookie the person signs in as before, and nothing is sent",
        arguments: [
            ("fails", #"{"acquirePrtSsoCookie": {"status": 2}}"#, [String]()),
            ("D-Bus error", #"{"acquirePrtSsoCookie": {"dbusError": "org.freedesktop.DBus.Error.Failed"}}"#, []),
            ("nobody enrolled", #"{"noAccounts": true}"#, []),
            ("no cookie in the answer", #"{"acquirePrtSsoCookie": {"reply": {"account": {}}}}"#, []),
            ("a cookie that cannot be sent", #"{"acquirePrtSsoCookie": {"reply": {"cookieName": "x-ms-RefreshTokenCredential", "cookieContent": "a;b"}}}"#, []),
            ("not registered", "{}", ["no-broker"]),
            ("turned off", "{}", ["off"]),
        ])
    func noCookie(_ name: String, _ scenario: String, _ arguments: [String]) async throws {
        let run = try await run(scenario, arguments)
        #expect(run.report[.outcome] == "success", "\(name): \(run.report[.message] ?? "")")
        #expect(run.cookies == ["none"], "\(name): \(run.cookies)")
        if arguments.contains("off") || arguments.contains("no-broker") {
            #expect(!run.brokerRequests.contains { $0.method == "acquirePrtSsoCookie" }, "\(name): the broker is not asked")
        }
    }

    @Test("PKeyAuth/1.0 is in the view's user agent at an Entra ID authority, and only there; no broker is asked elsewhere")
    func deviceChallengeAdvertisedAtEntraOnly() async throws {
        let entra = try await run("{}", ["no-broker"])
        #expect(entra.report[.outcome] == "success", "\(entra.report[.message] ?? "")")
        let agent = try #require(entra.userAgents.first)
        #expect(agent.hasSuffix(" PKeyAuth/1.0"), "\(agent)")

        let other = try await run("{}", plain: true)
        #expect(other.report[.outcome] == "success", "\(other.report[.message] ?? "")")
        let plainAgent = try #require(other.userAgents.first)
        #expect(!plainAgent.contains("PKeyAuth"), "\(plainAgent)")
        #expect(other.brokerRequests.isEmpty, "a provider not taken for Entra ID: the broker is not asked for a cookie")
        #expect(other.cookies == ["none"])
    }
}
