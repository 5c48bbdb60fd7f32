import Foundation
import GLibSupport
import MicrosoftIdentityBroker
import ScenarioSupport
import SignIn
import Testing
import WebviewHost

/// `MicrosoftIdentityBroker` against the D-Bus double of Microsoft's identity broker
/// (`Tests/Fixtures/BrokerDouble/broker_double.py`) on a private bus from `dbus-run-session`.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct MicrosoftIdentityBrokerTests {
    static let clientID = "11111111-2222-3333-4444-555555555555"
    static let authority = URL(string: "https://login.microsoftonline.com/contoso-tid")!
    static let client = TokenBrokerClient(clientID: clientID, authority: authority, redirectURI: URL(string: "http://127.0.0.1/callback")!)
    static let nativeClient = "https://login.microsoftonline.com/common/oauth2/nativeclient"
    static let scopes = ["https://graph.microsoft.com/.default"]
    /// The double's person (its answers' IDs are GUIDs, as the real broker's are).
    static let tenant = "6f2c1a3e-0b7d-4e59-9a8c-3d1e2f4a5b6c"
    static let object = "a1b2c3d4-e5f6-4789-8abc-def012345678"
    static let shapes = ["2.0.1", "2.0.2"]

    /// `Tests/Fixtures/BrokerDouble/captures.json`: what real peers sent and answered.
    static func capture(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: Checkout.fixture("BrokerDouble").appendingPathComponent("captures.json"))
        let all = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(all[name] as? [String: Any], "no capture \(name)")
    }

    func withDouble<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ scenario: [String: Any] = [:], _ body: (BrokerDouble, MicrosoftIdentityBroker) async throws -> T
    ) async throws -> T {
        let double = try await BrokerDouble.start(json: try JSONSerialization.data(withJSONObject: scenario))
        defer { double.stop() }
        return try await body(double, MicrosoftIdentityBroker(busAddress: double.address, callTimeout: .seconds(30)))
    }

    /// The ``WebAuthError`` `body` threw, or `nil` (recorded as an issue if it threw another error).
    func error(_ body: () async throws -> Void) async -> WebAuthError? {
        do {
            try await body()
            return nil
        } catch let error as WebAuthError {
            return error
        } catch {
            Issue.record("not a WebAuthError: \(error)")
            return nil
        }
    }

    // MARK: - Availability

    @Test func availableForEntraAuthoritiesWhenTheBrokerOwnsItsName() async throws {
        try await withDouble { _, broker in
            #expect(await broker.availability(for: Self.authority) == .available)
            #expect(await broker.availability(for: URL(string: "https://login.microsoftonline.us/organizations")!) == .available)
        }
    }

    @Test(arguments: [
        "https://contoso.b2clogin.com/contoso.onmicrosoft.com/B2C_1_signin",
        "https://login.microsoftonline.com/tfp/contoso.onmicrosoft.com/B2C_1_signin",
        "https://adfs.contoso.example/adfs",
        "https://login.contoso.example/adfs/oauth2",
        "https://accounts.google.com",
    ])
    func declinesB2CADFSAndOtherIssuers(_ authority: String) async throws {
        try await withDouble { double, broker in
            let availability = await broker.availability(for: URL(string: authority)!)
            guard case .declinesAuthority = availability else {
                Issue.record("\(authority): \(availability)")
                return
            }
            #expect(double.requests.isEmpty)
        }
    }

    @Test func unavailableWhenNobodyOwnsTheName() async throws {
        try await withDouble(["absent": true]) { _, broker in
            let availability = await broker.availability(for: Self.authority)
            guard case .unavailable(let reason) = availability else {
                Issue.record("\(availability)")
                return
            }
            #expect(reason.contains("com.microsoft.identity.broker1"))
            let failure = await error { _ = try await broker.accounts(for: Self.client) }
            #expect(failure?.code == .brokerUnavailable)
        }
    }

    @Test func aBrokerTheBusCanStartIsAvailableAndTheCallThatStartsItGoesThrough() async throws {
        let double = try await BrokerDouble.start(json: Data(#"{"absent":true}"#.utf8), activating: Data(#"{"shape":"2.0.2"}"#.utf8))
        defer { double.stop() }
        let broker = MicrosoftIdentityBroker(busAddress: double.address)
        #expect(await broker.availability(for: Self.authority) == .available)  // not running, but activatable
        // The name gets its first owner during this call: that is not the broker going away.
        let result = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes))
        #expect(result.accessToken == "broker-access-token")
    }

    @Test func unavailableWithoutASessionBus() async throws {
        let broker = MicrosoftIdentityBroker(busAddress: "unix:path=/nonexistent/bus-\(UUID().uuidString)")
        let availability = await broker.availability(for: Self.authority)
        guard case .unavailable = availability else {
            Issue.record("\(availability)")
            return
        }
        let failure = await error { _ = try await broker.accounts(for: Self.client) }
        #expect(failure?.code == .brokerUnavailable)
    }

    /// A bus that takes the connection and never says a word (a hung `dbus-daemon`): the calls to it
    /// end `brokerUnavailable` after two bounded attempts, and meanwhile another broker of the
    /// process, on a bus that answers, is not held up (every broker shares one worker thread).
    @Test func aBusThatNeverAnswersEndsItsCallsAndHoldsUpNoOtherBroker() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("silent-bus-\(UUID().uuidString)").path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer {
            close(listener)
            unlink(path)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        #expect(listen(listener, 8) == 0)  // connections are taken (the backlog) and never accepted nor answered

        let silent = MicrosoftIdentityBroker(busAddress: "unix:path=\(path)", callTimeout: .seconds(3))
        let stuck = Task { await error { _ = try await silent.accounts(for: Self.client) } }
        try await withDouble { _, broker in
            // Started after the silent bus's first attempt: it must not wait for that attempt to end.
            let accounts = try await broker.accounts(for: Self.client)
            #expect(accounts.count == 1)
        }
        let failure = await stuck.value
        #expect(failure?.code == .brokerUnavailable)
        #expect(failure?.localizedDescription.contains("did not answer within 6") == true, "\(String(describing: failure))")
    }

    // MARK: - What each call sends, against what real clients send

    @Test(arguments: shapes)
    func interactiveSendsSSOMibsRequestWithAuthorizationType6(_ shape: String) async throws {
        try await withDouble(["shape": shape]) { double, broker in
            let result = try await broker.acquireTokenInteractively(
                TokenBrokerRequest(client: Self.client, scopes: Self.scopes, loginHint: "alice@contoso.example"))
            #expect(result.accessToken == "broker-access-token")
            #expect(result.scopes == Self.scopes)
            #expect(result.account.username == "alice@contoso.example")
            #expect(result.account.name == "Alice Example")
            let environment = shape == "2.0.1" ? "login.windows.net" : "login.microsoftonline.com"
            #expect(result.account.issuer == "https://\(environment)/\(Self.tenant)/v2.0")
            #expect(abs(result.expiresOn.timeIntervalSinceNow - 3600) < 120)
            let request = try await double.request("acquireTokenInteractively")
            #expect(request.protocolVersion == "0.0")
            #expect(UUID(uuidString: request.correlationID) != nil)
            #expect(
                request.json
                    == #"{"authParameters":{"additionalQueryParametersForAuthorization":{},"#
                    + #""authority":"https://login.microsoftonline.com/contoso-tid","authorizationType":6,"#
                    + #""clientId":"\#(Self.clientID)","redirectUri":"\#(Self.nativeClient)","#
                    + #""requestedScopes":["https://graph.microsoft.com/.default"],"username":"alice@contoso.example","uxContextHandle":-1}}"#)
        }
    }

    @Test(arguments: shapes)
    func silentSendsTheBrokersAccountInsideAuthParametersOnlyWithAuthorizationType1(_ shape: String) async throws {
        try await withDouble(["shape": shape]) { double, broker in
            let accounts = try await broker.accounts(for: Self.client)
            #expect(accounts.map(\.username) == ["alice@contoso.example"])
            #expect(try await double.request("getAccounts").json == #"{"clientId":"\#(Self.clientID)","redirectUri":"\#(Self.nativeClient)"}"#)

            let result = try await broker.acquireTokenSilently(TokenBrokerRequest(client: Self.client, scopes: Self.scopes, account: accounts[0]))
            #expect(result.account == accounts[0])
            let sent = try await double.request("acquireTokenSilently").object
            #expect(sent.keys.sorted() == ["authParameters"], "no top-level account (sso-mib b1610ed, linux-entra-sso d847b61, Edge)")
            let parameters = try #require(sent["authParameters"] as? [String: Any])
            #expect(parameters["authorizationType"] as? Int == 1)
            // The broker's own account object goes back as getAccounts gave it.
            let account = try #require(parameters["account"] as? [String: Any])
            #expect(account["homeAccountId"] as? String == "\(Self.object).\(Self.tenant)")
            #expect(account["passwordExpiry"] as? Int == 0)
            #expect(parameters["username"] as? String == "alice@contoso.example")

            try await broker.signOut(accounts[0], for: Self.client)
            let removal = try await double.request("removeAccount").object
            #expect(removal.keys.sorted() == ["account", "clientId"])
            #expect((removal["account"] as? [String: Any])?["homeAccountId"] as? String == "\(Self.object).\(Self.tenant)")
            #expect(try await broker.brokerVersion() == (shape == "2.0.1" ? "2.0.1" : "2.5.2"))
            #expect(try await double.request("getLinuxBrokerVersion").json == #"{"msalCppVersion":"1.28.0"}"#)
        }
    }

    /// The silent request, key by key, against Microsoft Edge's own (dbus-monitor, himmelblau issue
    /// 657): every key this library sends is one Edge sends, with a value of the same JSON type
    /// and nesting; the keys it leaves out are the ones Edge sends empty (and `requestOptions`,
    /// whose meaning is not public); the account object has Edge's keys.
    @Test func theSilentRequestMatchesEdgesCapturedRequestFieldByField() async throws {
        let edge = try #require(try Self.capture("edgeSilentRequest")["request"] as? [String: Any])
        let edgeParameters = try #require(edge["authParameters"] as? [String: Any])
        try await withDouble(["shape": "2.0.2"]) { double, broker in
            let account = try #require(try await broker.accounts(for: Self.client).first)
            _ = try await broker.acquireTokenSilently(TokenBrokerRequest(client: Self.client, scopes: Self.scopes, account: account))
            let ours = try await double.request("acquireTokenSilently").object
            #expect(Set(ours.keys) == Set(edge.keys), "top-level keys")
            let parameters = try #require(ours["authParameters"] as? [String: Any])
            for (key, value) in parameters {
                let theirs = try #require(edgeParameters[key], "Edge sends no \(key)")
                #expect(Self.jsonType(value) == Self.jsonType(theirs), "\(key): \(Self.jsonType(value)) where Edge sends \(Self.jsonType(theirs))")
            }
            let leftOut = Set(edgeParameters.keys).subtracting(parameters.keys)
            #expect(leftOut == ["accessTokenToRenew", "decodedClaims", "enrollmentId", "password", "popParams", "requestOptions"])
            for key in leftOut where key != "requestOptions" {
                #expect(Self.isEmpty(edgeParameters[key]), "Edge sends \(key) with a value: \(edgeParameters[key] ?? "")")
            }
            #expect(parameters["authorizationType"] as? Int == edgeParameters["authorizationType"] as? Int)
            #expect(parameters["uxContextHandle"] as? Int == edgeParameters["uxContextHandle"] as? Int)
            let edgeAccount = try #require(edgeParameters["account"] as? [String: Any])
            let ourAccount = try #require(parameters["account"] as? [String: Any])
            #expect(Set(ourAccount.keys) == Set(edgeAccount.keys), "the account object has MSALRuntime's keys")
        }
    }

    /// `"string"`, `"number"`, `"object"`, `"array of string"`, ... of a parsed JSON value.
    static func jsonType(_ value: Any) -> String {
        switch value {
        case is NSNull: "null"
        case let number as NSNumber:
            ["[true]", "[false]"].contains((try? JSONSerialization.data(withJSONObject: [number])).map { String(decoding: $0, as: UTF8.self) })
                ? "boolean" : "number"
        case is String: "string"
        case let list as [Any]: "array of " + (list.first.map(jsonType) ?? "nothing")
        case is [String: Any]: "object"
        default: "\(type(of: value))"
        }
    }

    static func isEmpty(_ value: Any?) -> Bool {
        switch value {
        case nil, is NSNull: true
        case let text as String: text.isEmpty
        case let list as [Any]: list.isEmpty
        case let object as [String: Any]: object.isEmpty
        default: false
        }
    }

    @Test func theAppsScopesGoAsAskedWithNothingAdded() async throws {
        try await withDouble { double, broker in
            _ = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: ["User.Read", "Mail.Read"]))
            let parameters = try #require(try await double.request("acquireTokenInteractively").object["authParameters"] as? [String: Any])
            #expect(parameters["requestedScopes"] as? [String] == ["User.Read", "Mail.Read"])
        }
    }

    @Test(arguments: [(Prompt.selectAccount, false), (.login, false), (.consent, true)])
    func anInteractiveCallThatPicksAnAccountSendsNoAccount(_ prompt: Prompt, _ keepsAccount: Bool) async throws {
        try await withDouble { double, broker in
            let account = try #require(try await broker.accounts(for: Self.client).first)
            _ = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes, account: account, prompt: prompt))
            let parameters = try #require(try await double.request("acquireTokenInteractively").object["authParameters"] as? [String: Any])
            #expect(parameters["prompt"] as? String == prompt.rawValue)
            #expect((parameters["account"] != nil) == keepsAccount)
            #expect((parameters["username"] != nil) == keepsAccount)
        }
    }

    @Test func silentForAnAccountTheBrokerDoesNotKnowNeedsInteraction() async throws {
        try await withDouble(["getAccounts": ["reply": ["accounts": []]]]) { double, broker in
            let stranger = Account(subject: "bob.tid", issuer: "https://login.microsoftonline.com/tid/v2.0", username: "bob", name: nil)
            let failure = await error {
                _ = try await broker.acquireTokenSilently(TokenBrokerRequest(client: Self.client, scopes: Self.scopes, account: stranger))
            }
            #expect(failure?.code == .interactionRequired)
            #expect(!double.requests.contains { $0.method == "acquireTokenSilently" })
        }
    }

    @Test(arguments: [("x11:4a0001f", 0x4a0001f as Int?), ("wayland:abc", nil)])
    @MainActor
    func theParentWindowGoesAsItsX11IDUnderTheKeyNamed(_ identifier: String, _ expected: Int?) async throws {
        // Each argument's own toolkit: the two cases run in parallel.
        let toolkit = ToolkitIntegration(name: "test", launchContext: { _ in nil }, parentIdentifier: { _ in identifier })
        try await ToolkitIntegration.withIsolatedIntegration(toolkit) {
            try await withDouble { double, _ in
                let broker = MicrosoftIdentityBroker(busAddress: double.address, parentWindowKey: "parentWindowX11")
                let window = WindowHandle(address: UnsafeMutableRawPointer(bitPattern: 0x1000)!)  // opaque: only the toolkit reads it
                _ = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes, parentWindow: window))
                let parameters = try #require(try await double.request("acquireTokenInteractively").object["authParameters"] as? [String: Any])
                #expect(parameters["parentWindowX11"] as? Int == expected)
                #expect(parameters["uxContextHandle"] as? Int == -1)
            }
        }
    }

    // MARK: - Answers

    @Test(arguments: shapes)
    func anInteractiveAnswerWithoutAnAccountGivesThePersonItsIDTokenNames(_ shape: String) async throws {
        try await withDouble(["shape": shape, "omitAccount": true]) { double, broker in
            let result = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes))
            #expect(result.account.subject == "\(Self.object).\(Self.tenant)", "the broker's home account ID, from oid and tid")
            #expect(result.account.username == "alice@contoso.example")
            #expect(result.account.name == "Alice Example")
            // That account is the broker's: a silent call finds its object and goes through.
            let silent = try await broker.acquireTokenSilently(TokenBrokerRequest(client: Self.client, scopes: Self.scopes, account: result.account))
            #expect(silent.account == result.account, "the account asked for, when the answer names none")
            let parameters = try #require(try await double.request("acquireTokenSilently").object["authParameters"] as? [String: Any])
            #expect((parameters["account"] as? [String: Any])?["homeAccountId"] as? String == "\(Self.object).\(Self.tenant)")
        }
    }

    @Test func anInteractiveAnswerWithoutAnAccountGivesTheAccountAskedFor() async throws {
        try await withDouble(["omitAccount": true]) { _, broker in
            let account = try #require(try await broker.accounts(for: Self.client).first)
            let result = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes, account: account))
            #expect(result.account == account)
        }
    }

    /// The broker's own answers, as printed in public bug reports, answered verbatim.
    @Test(arguments: [("error_2.0.1", "AADSTS50078", "0"), ("error_2.0.2", "invalid_grant", "595719680")])
    func theBrokersRealInteractionRequiredAnswersAreInteractionRequired(_ name: String, _ inContext: String, _ tag: String) async throws {
        let answer = try #require(try Self.capture(name)["answer"] as? [String: Any])
        try await withDouble(["acquireTokenSilently": ["reply": answer]]) { _, broker in
            let account = try #require(try await broker.accounts(for: Self.client).first)
            let failure = try #require(
                await error { _ = try await broker.acquireTokenSilently(TokenBrokerRequest(client: Self.client, scopes: Self.scopes, account: account)) })
            #expect(failure.code == .interactionRequired)
            let details = try #require(failure.underlyingError as? TokenBrokerError)
            #expect(details.status == "2")
            #expect(details.subStatus == "0")
            #expect(details.errorCode == "0")
            #expect(details.tag == tag)
            #expect(details.context?.contains(inContext) == true, "the broker's context is kept for diagnosis")
            #expect(!failure.message.contains(inContext), "not in the message a person may see")
        }
    }

    @Test func nothingTheBrokerSaysBeyondItsStatusReachesTheMessage() async throws {
        let reply: [String: Any] = [
            "brokerTokenResponse": [
                "accessToken": "secret-access-token", "idToken": "secret-id-token",
                "error": ["status": 2, "errorMessage": "secret-message for alice@contoso.example", "context": "ctx"],
            ]
        ]
        try await withDouble(["acquireTokenSilently": ["reply": reply]]) { _, broker in
            let account = try #require(try await broker.accounts(for: Self.client).first)
            let failure = try #require(
                await error { _ = try await broker.acquireTokenSilently(TokenBrokerRequest(client: Self.client, scopes: Self.scopes, account: account)) })
            #expect(failure.code == .interactionRequired)
            for text in [failure.message, failure.description, "\(failure.underlyingError.map { "\($0)" } ?? "")"] {
                #expect(!text.contains("secret"), "\(text)")
            }
        }
    }

    /// MSALRuntime's numbering, in both answer shapes.
    @Test(arguments: [
        (2, WebAuthError.Code.interactionRequired), (13, .interactionRequired), (16, .interactionRequired), (12, .interactionRequired),
        (7, .userCanceled), (8, .canceled), (3, .network), (4, .network), (6, .protocolMismatch), (9, .invalidParameters),
        (11, .invalidParameters), (19, .brokerUnavailable), (20, .brokerUnavailable), (21, .brokerUnavailable), (0, .server), (5, .server),
        (17, .server), (99, .server),
    ])
    func numericStatusesBecomeCodesAnAppCanActOn(_ status: Int, _ code: WebAuthError.Code) async throws {
        for shape in Self.shapes {
            try await withDouble(["shape": shape, "acquireTokenInteractively": ["status": status]]) { _, broker in
                let failure = await error { _ = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes)) }
                #expect(failure?.code == code, "\(shape): status \(status)")
                let details = failure?.underlyingError as? TokenBrokerError
                #expect(details?.broker == "microsoft-identity-broker")
                #expect(details?.status == "\(status)")
            }
        }
    }

    /// Names, for brokers (and compatible brokers) that send them.
    @Test(arguments: [
        (#"{"status":"interaction_required","subStatus":6002,"context":"silent"}"#, WebAuthError.Code.interactionRequired, "interaction_required"),
        (#"{"status":"InteractionRequired"}"#, .interactionRequired, "InteractionRequired"),
        (#"{"status":"consent_required","subStatus":"65001"}"#, .consentRequired, "consent_required"),
        (#"{"status":2,"subStatus":65001}"#, .consentRequired, "2"),
        (#"{"status":"user_cancelled"}"#, .userCanceled, "user_cancelled"),
        (#"{"status":"broker_unavailable"}"#, .brokerUnavailable, "broker_unavailable"),
        (#""something went wrong""#, .server, "something went wrong"),
    ])
    func statusNamesStillBecomeCodes(_ errorJSON: String, _ code: WebAuthError.Code, _ status: String) async throws {
        let reply = try JSONSerialization.jsonObject(with: Data(#"{"brokerTokenResponse":{"error":\#(errorJSON)}}"#.utf8))
        try await withDouble(["acquireTokenInteractively": ["reply": reply]]) { _, broker in
            let failure = await error { _ = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes)) }
            #expect(failure?.code == code)
            #expect((failure?.underlyingError as? TokenBrokerError)?.status == status)
        }
    }

    @Test func sSOMibsBadTokenAnswerIsServer() async throws {
        // siemens/sso-mib tests: {"error":"something"} without brokerTokenResponse.
        try await withDouble(["acquireTokenInteractively": ["reply": ["error": "something"]]]) { _, broker in
            let failure = await error { _ = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes)) }
            #expect(failure?.code == .server)
        }
    }

    @Test(arguments: [
        ["dbusError": "org.freedesktop.DBus.Error.UnknownMethod"],
        ["replyText": "not json"],
        ["reply": ["somethingElse": true]],
        ["reply": ["brokerTokenResponse": ["accessToken": "a", "idToken": "b"]]],  // no expiresOn
    ] as [[String: any Sendable]])
    func answersInAnotherProtocolAreProtocolMismatch(_ behaviour: [String: any Sendable]) async throws {
        try await withDouble(["acquireTokenInteractively": behaviour]) { _, broker in
            let failure = await error { _ = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes)) }
            #expect(failure?.code == .protocolMismatch, "\(String(describing: failure))")
        }
    }

    @Test(arguments: ["org.freedesktop.DBus.Error.Failed", "org.freedesktop.DBus.Error.NoReply", "com.example.Broker.Error.Crashed"])
    func aDBusErrorFromABrokerThatIsRunningIsServerWithTheErrorKept(_ name: String) async throws {
        try await withDouble(["getAccounts": ["dbusError": name]]) { _, broker in
            let failure = await error { _ = try await broker.accounts(for: Self.client) }
            #expect(failure?.code == .server, "\(String(describing: failure))")
            #expect((failure?.underlyingError as? TokenBrokerError)?.transport?.contains(name) == true)
        }
    }

    @Test func anEmptyAnswerIsServer() async throws {
        // himmelblau's broker answers "" when its daemon closed the connection without an answer.
        try await withDouble(["acquireTokenInteractively": ["replyText": ""]]) { _, broker in
            let failure = await error { _ = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes)) }
            #expect(failure?.code == .server)
        }
    }

    // MARK: - The double refuses what a current broker refuses

    /// The double is only worth testing against if it refuses what the real broker refuses: a
    /// token call of the wrong authorization type (after 2.0.1), and an unknown method.
    @Test(arguments: [("2.0.2", 8, 6), ("2.0.2", 6, 6), ("2.0.1", 8, nil), ("2.0.1", 1, nil)] as [(String, Int, Int?)])
    func theDoubleRefusesAWrongAuthorizationTypeAsABrokerAfter201Does(_ shape: String, _ type: Int, _ refusedWith: Int?) async throws {
        try await withDouble(["shape": shape]) { double, _ in
            let account = #"{"homeAccountId":"\#(Self.object).\#(Self.tenant)","username":"alice@contoso.example"}"#
            let request = #"{"authParameters":{"account":\#(account),"authority":"\#(Self.authority)","authorizationType":\#(type),"#
                + #""clientId":"\#(Self.clientID)","redirectUri":"\#(Self.nativeClient)","requestedScopes":["User.Read"]}}"#
            let answer = try Self.gdbusCall(double.address, "acquireTokenSilently", request)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
            let status = ((object["brokerTokenResponse"] as? [String: Any])?["error"] as? [String: Any])?["status"] as? Int
            #expect(status == refusedWith, "\(answer.prefix(200))")
        }
        try await withDouble { double, _ in
            _ = #expect(throws: (any Error).self) { try Self.gdbusCall(double.address, "acquireTokenSilentlyV2", "{}") }
        }
    }

    /// One call with Debian's `gdbus call` (not this library's client); the answer string.
    static func gdbusCall(_ address: String, _ method: String, _ json: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
        process.arguments = [
            "call", "--address", address, "--dest", "com.microsoft.identity.broker1", "--object-path", "/com/microsoft/identity/broker1",
            "--method", "com.microsoft.identity.Broker1.\(method)", "0.0", UUID().uuidString.lowercased(), json,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BrokerDoubleError("gdbus call \(method) failed") }
        // gdbus prints the reply as a GVariant text: ('...',)
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let variant = try #require(text.hasPrefix("('") && text.hasSuffix("',)") ? String(text.dropFirst(2).dropLast(3)) : nil)
        return variant.replacingOccurrences(of: "\\'", with: "'").replacingOccurrences(of: "\\\\", with: "\\")
    }

    // MARK: - Vanishing, cancelling

    @Test(arguments: ["release", "exit"])
    func aBrokerThatVanishesMidCallEndsTheCallAtOnce(_ how: String) async throws {
        try await withDouble(["acquireTokenInteractively": ["vanish": how]]) { double, broker in
            let started = ContinuousClock.now
            let failure = await error { _ = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes)) }
            let took = ContinuousClock.now - started
            #expect(failure?.code == .brokerUnavailable, "\(String(describing: failure))")
            // The interactive call has no D-Bus timeout: only the name watch (or the bus) can end it this soon.
            #expect(took < .seconds(20))
            _ = double
        }
    }

    @Test(arguments: shapes)
    func cancellingTheTaskSendsCancelInteractiveFlow(_ shape: String) async throws {
        try await withDouble(["shape": shape, "acquireTokenInteractively": ["hang": true]]) { double, broker in
            let call = Task { try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes)) }
            let interactive = try await double.request("acquireTokenInteractively")
            call.cancel()
            let failure = await error { _ = try await call.value }
            #expect(failure?.code == .canceled)
            let cancel = try await double.request("cancelInteractiveFlow")
            #expect(cancel.correlationID == interactive.correlationID)
            #expect(cancel.protocolVersion == "0.0")
        }
    }
}
