import Foundation
import GLibSupport
import MicrosoftIdentityBroker
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
    /// The double's account, as it sends it (unknown fields included), sorted.
    static let accountJSON =
        #"{"clientInfo":"eyJ1aWQiOiJhbGljZS1vaWQifQ","environment":"login.microsoftonline.com","familyName":"Example","givenName":"Alice","#
        + #""homeAccountId":"alice-oid.contoso-tid","localAccountId":"alice-oid","name":"Alice Example","realm":"contoso-tid","#
        + #""someFutureField":{"ignored":true},"username":"alice@contoso.example"}"#

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

    // MARK: - Every method, both response shapes

    @Test(arguments: ["pre-2.0.2", "2.0.2"])
    func interactiveSendsTheDocumentedRequestAndReadsEitherShape(_ shape: String) async throws {
        try await withDouble(["shape": shape]) { double, broker in
            let result = try await broker.acquireTokenInteractively(
                TokenBrokerRequest(client: Self.client, scopes: Self.scopes, loginHint: "alice@contoso.example"))
            #expect(result.accessToken == "broker-access-token")
            #expect(result.scopes == Self.scopes)
            #expect(result.account.username == "alice@contoso.example")
            #expect(result.account.name == "Alice Example")
            #expect(result.account.issuer == "https://login.microsoftonline.com/contoso-tid/v2.0")
            #expect(abs(result.expiresOn.timeIntervalSinceNow - 3600) < 120)
            let request = try await double.request("acquireTokenInteractively")
            #expect(request.protocolVersion == "0.0")
            #expect(UUID(uuidString: request.correlationID) != nil)
            #expect(
                request.json
                    == #"{"authParameters":{"authority":"https://login.microsoftonline.com/contoso-tid","authorizationType":8,"#
                    + #""clientId":"\#(Self.clientID)","redirectUri":"\#(Self.nativeClient)","#
                    + #""requestedScopes":["https://graph.microsoft.com/.default"],"username":"alice@contoso.example"}}"#)
        }
    }

    @Test(arguments: ["pre-2.0.2", "2.0.2"])
    func accountsSilentAndSignOutSendTheBrokersAccountBackInBothPlaces(_ shape: String) async throws {
        try await withDouble(["shape": shape]) { double, broker in
            let accounts = try await broker.accounts(for: Self.client)
            #expect(accounts.map(\.username) == ["alice@contoso.example"])
            #expect(
                try await double.request("getAccounts").json
                    == #"{"clientId":"\#(Self.clientID)","redirectUri":"\#(Self.nativeClient)"}"#)

            let result = try await broker.acquireTokenSilently(
                TokenBrokerRequest(client: Self.client, scopes: Self.scopes, account: accounts[0]))
            #expect(result.account == accounts[0])
            #expect(
                try await double.request("acquireTokenSilently").json
                    == #"{"account":\#(Self.accountJSON),"authParameters":{"account":\#(Self.accountJSON),"#
                    + #""authority":"https://login.microsoftonline.com/contoso-tid","authorizationType":8,"#
                    + #""clientId":"\#(Self.clientID)","redirectUri":"\#(Self.nativeClient)","#
                    + #""requestedScopes":["https://graph.microsoft.com/.default"],"username":"alice@contoso.example"}}"#)

            try await broker.signOut(accounts[0], for: Self.client)
            #expect(try await double.request("removeAccount").json == #"{"account":\#(Self.accountJSON),"clientId":"\#(Self.clientID)"}"#)
            #expect(try await broker.brokerVersion() == (shape == "2.0.2" ? "2.0.2" : "2.0.1"))
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
        let previous = ToolkitIntegration.current
        ToolkitIntegration.current = ToolkitIntegration(
            name: "test", makeLaunchContext: { _ in nil }, parentWindowIdentifier: { _ in identifier })
        defer { ToolkitIntegration.current = previous }
        try await withDouble { double, _ in
            let broker = MicrosoftIdentityBroker(busAddress: double.address, parentWindowKey: "parentWindowX11")
            let window = WindowHandle(UnsafeMutableRawPointer(bitPattern: 0x1000)!)  // opaque: only the toolkit reads it
            _ = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes, parentWindow: window))
            let parameters = try #require(try await double.request("acquireTokenInteractively").object["authParameters"] as? [String: Any])
            #expect(parameters["parentWindowX11"] as? Int == expected)
        }
    }

    // MARK: - Errors

    @Test func nothingTheBrokerSaysBeyondItsStatusReachesTheErrorOrItsDescription() async throws {
        let reply: [String: Any] = [
            "error": ["status": "interaction_required", "errorMessage": "secret-message for alice@contoso.example", "context": "ctx"],
            "brokerTokenResponse": ["accessToken": "secret-access-token", "idToken": "secret-id-token"],
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

    @Test(arguments: [
        (#"{"status":"interaction_required","subStatus":6002,"context":"silent"}"#, WebAuthError.Code.interactionRequired, "interaction_required"),
        (#"{"status":"InteractionRequired"}"#, .interactionRequired, "InteractionRequired"),
        (#"{"status":"consent_required","subStatus":"65001"}"#, .consentRequired, "consent_required"),
        (#"{"status":"user_cancelled"}"#, .userCanceled, "user_cancelled"),
        (#"{"status":"broker_unavailable"}"#, .brokerUnavailable, "broker_unavailable"),
        (#"{"status":7,"newField":[1]}"#, .server, "7"),
        (#""something went wrong""#, .server, "something went wrong"),
        (#"{"errorCode":"AADSTS50076"}"#, .server, "AADSTS50076"),
    ])
    func brokerErrorsBecomeCodesAnAppCanActOn(_ errorJSON: String, _ code: WebAuthError.Code, _ status: String) async throws {
        let reply = try JSONSerialization.jsonObject(with: Data(#"{"error":\#(errorJSON)}"#.utf8), options: .fragmentsAllowed)
        try await withDouble(["acquireTokenInteractively": ["reply": reply]]) { _, broker in
            let failure = await error { _ = try await broker.acquireTokenInteractively(TokenBrokerRequest(client: Self.client, scopes: Self.scopes)) }
            #expect(failure?.code == code)
            let details = failure?.underlyingError as? TokenBrokerError
            #expect(details?.broker == "microsoft-identity-broker")
            #expect(details?.status == status)
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

    @Test func aDBusFailureOfTheBrokerIsBrokerUnavailable() async throws {
        try await withDouble(["getAccounts": ["dbusError": "org.freedesktop.DBus.Error.Failed"]]) { _, broker in
            let failure = await error { _ = try await broker.accounts(for: Self.client) }
            #expect(failure?.code == .brokerUnavailable)
            #expect((failure?.underlyingError as? TokenBrokerError)?.transport?.contains("org.freedesktop.DBus.Error.Failed") == true)
        }
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

    @Test func cancellingTheTaskSendsCancelInteractiveFlow() async throws {
        try await withDouble(["acquireTokenInteractively": ["hang": true]]) { double, broker in
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
