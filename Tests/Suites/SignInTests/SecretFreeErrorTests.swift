import Foundation
import Testing
import WebviewHost

@testable import SignIn

/// Token endpoint and ID token errors reach logs and crash reports: none may quote a token.
@Suite struct SecretFreeErrorTests {
    static let marker = "Zq9SECRETxK7wpMarker"
    static let tokenEndpoint = URL(string: "https://login.example.com/token")!

    /// Every text an app could print or log about `error`.
    static func texts(of error: WebAuthError) -> [String] {
        var texts = [
            error.message, error.description, String(describing: error), String(reflecting: error),
            error.localizedDescription, error.url?.absoluteString ?? "",
        ]
        if let underlying = error.underlyingError {
            texts += [String(describing: underlying), String(reflecting: underlying), underlying.localizedDescription]
        }
        var dumped = ""
        dump(error, to: &dumped)
        return texts + [dumped]
    }

    /// Token endpoint answers (status, body) that fail, each holding the marker as a token.
    static let answers: [(Int, String)] = {
        let m = marker
        return [
            (200, #"{"access_token":"\#(m)","token_type":"\#(m)"}"#),
            (200, #"{"access_token":"\#(m)","token_type":"DPoP \#(m)"}"#),
            (200, #"{"access_token":"\#(m)"}"#),
            (200, #"{"access_token":"\#(m)","token_type":null}"#),
            (200, #"{"access_token":"\#(m)","token_type":"bearer","expires_in":"\#(m)"}"#),
            (200, #"{"access_token":"\#(m)","token_type":"bearer","refresh_token":5,"id_token":"\#(m)"}"#),
            (200, #"{"access_token":"\#(m)","token_type":"bearer","id_token":["\#(m)"]}"#),
            (200, #"{"access_token":"\#(m)","token_type":"bearer","scope":{"a":"\#(m)"}}"#),
            (200, #"{"access_token":"\#(m)","token_type":"bearer","expires_in":1e999}"#),
            (200, #"{"access_token":"\#(m)","token_type":"bearer""#),
            (200, #"{"access_token":"\#(m)\x","token_type":"bearer"}"#),
            (200, #"{"access_token":"\#(m)\ud800","token_type":"bearer"}"#),
            (200, #"{"access_token":\#(m),"token_type":"bearer"}"#),
            (200, #"{"access_token":"\#(m)" "token_type":"bearer"}"#),
            (200, #"["\#(m)"]"#),
            (200, #"\#(m)"#),
            (200, "access_token=\(m)&token_type=bearer"),
            (200, "{\"access_token\":\"\(m)\u{1}\",\"token_type\":\"bearer\"}"),
            (500, #"{"access_token":"\#(m)"}"#),
            (500, #"{"error":"server_error","refresh_token":"\#(m)"}"#),
            (503, "<html>\(m)</html>"),
            (302, #"{"access_token":"\#(m)","token_type":"bearer"}"#),
        ]
    }()

    @Test("Token endpoint errors never quote the body", arguments: 0..<answers.count)
    func tokenEndpoint(_ index: Int) {
        let (status, body) = Self.answers[index]
        var data = Data(body.utf8)
        do {
            let outcome = try Authority.grantOutcome(status: status, body: data, from: Self.tokenEndpoint)
            Issue.record("\(body) gave \(outcome)")
        } catch {
            for text in Self.texts(of: error) {
                #expect(!text.contains(Self.marker), "HTTP \(status) \(body): \(text)")
            }
        }
        // The same body with bytes that are not UTF-8 around the marker.
        data.append(contentsOf: [0xFF, 0xFE])
        data.insert(0xC3, at: 0)
        if let error = #expect(throws: WebAuthError.self, performing: {
            _ = try Authority.grantOutcome(status: status, body: data, from: Self.tokenEndpoint)
        }) {
            for text in Self.texts(of: error) { #expect(!text.contains(Self.marker)) }
        }
    }

    @Test("The token type is named when it looks like one")
    func namesATokenType() throws {
        let body = Data(#"{"access_token":"\#(Self.marker)","token_type":"DPoP"}"#.utf8)
        let error = try #require(throws: WebAuthError.self) {
            _ = try Authority.grantOutcome(status: 200, body: body, from: Self.tokenEndpoint)
        }
        #expect(error.message.contains("\"DPoP\""))
    }

    @Test("A refused ID token's error never quotes the token or any part of it", arguments: IDTokenValidatorTests.refused)
    func idTokenRefusals(_ testCase: IDTokenValidatorTests.Case) {
        let validator = IDTokenValidator(issuer: "https://issuer.example", clientID: "my-app", allowedClockSkew: 60)
        let token = testCase.token()
        do {
            _ = try validator.validate(token, keys: TestTokenSigner.keySet, nonce: "the-nonce", now: IDTokenValidatorTests.now)
            Issue.record("accepted")
        } catch {
            let refusal = TokenExchange.refused(error)
            let parts = token.split(separator: ".").map(String.init).filter { $0.count >= 8 }
            for text in Self.texts(of: refusal) {
                for part in parts { #expect(!text.contains(part), "\(testCase.name): \(text)") }
            }
        }
    }

    @Test("Malformed ID tokens carrying a marker: the error does not quote it", arguments: [
        "\(marker)", "\(marker).\(marker)", "\(marker).\(marker).\(marker)", "a.b.\(marker)",
        "eyJhbGciOiJSUzI1NiJ9.\(marker).\(marker)",
        // header {"alg":"RS256"} and a payload that is not JSON: "Zq9SECRETxK7wpMarker"
        "eyJhbGciOiJSUzI1NiJ9.WnE5U0VDUkVUeEs3d3BNYXJrZXI.c2ln",
    ])
    func malformedIDTokens(_ token: String) {
        do {
            let parsed = try IDToken(token)
            _ = try IDTokenClaims(json: parsed.payload)
            Issue.record("accepted")
        } catch {
            for text in Self.texts(of: TokenExchange.refused(error)) {
                #expect(!text.contains(Self.marker), "\(text)")
            }
        }
    }
}

extension SecretFreeErrorTests {
    @Test("A token endpoint that echoes the code or refresh token it was sent has it redacted", arguments: [400, 401, 500, 503])
    func echoedSecretsAreRedacted(_ status: Int) throws {
        let body = Data(#"{"error":"invalid_grant \#(Self.marker)","error_description":"refresh token \#(Self.marker) is unknown","error_uri":"https://idp/\#(Self.marker)"}"#.utf8)
        var shown: [String] = []
        let outcome: Authority.GrantOutcome
        do throws(WebAuthError) {
            outcome = try Authority.grantOutcome(status: status, body: body, from: Self.tokenEndpoint, sent: [Self.marker, "verifier-1"])
        } catch {
            shown = Self.texts(of: error)
            #expect(error.code == .server)
            #expect(error.message.contains("refresh token [redacted] is unknown"))
            outcome = .refused(status: 0, nil)
        }
        if case .refused(let code, let oauthError) = outcome, code != 0 {
            let oauthError = try #require(oauthError)
            shown = [oauthError.error, oauthError.errorDescription ?? "", oauthError.errorURI ?? ""]
            #expect(oauthError.errorDescription == "refresh token [redacted] is unknown")
        }
        #expect(!shown.isEmpty)
        for text in shown { #expect(!text.contains(Self.marker), "\(text)") }
    }
}
