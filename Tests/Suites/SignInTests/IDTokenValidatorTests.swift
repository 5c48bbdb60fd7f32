import Foundation
import Testing
import WebviewHost

@testable import SignIn

@Suite struct IDTokenValidatorTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    let validator = IDTokenValidator(issuer: "https://issuer.example", clientID: "my-app", allowedClockSkew: 60)

    static func claims(_ changes: [String: Any?] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": "https://issuer.example", "sub": "alice-id", "aud": "my-app", "azp": "my-app",
            "exp": now.timeIntervalSince1970 + 3600, "iat": now.timeIntervalSince1970 - 10,
            "nonce": "the-nonce", "name": "Alice Example", "email": "alice@example.com",
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    func validate(_ token: String) throws(IDTokenValidationError) -> IDTokenClaims {
        try validator.validate(token, keys: TestTokenSigner.keySet, nonce: "the-nonce", now: Self.now)
    }

    @Test(arguments: ["RS256", "ES256"])
    func acceptsAValidToken(algorithm: String) throws {
        let claims = try validate(TestTokenSigner.token(Self.claims(), algorithm: algorithm))
        #expect(claims.subject == "alice-id")
        #expect(claims.issuer == "https://issuer.example")
        #expect(claims.audience == ["my-app"])
        #expect(claims.nonce == "the-nonce")
        #expect(claims.name == "Alice Example")
        #expect(claims.email == "alice@example.com")
        #expect(claims.expiresAt == Self.now.addingTimeInterval(3600))
    }

    @Test func acceptsExpiryAndIssueTimeWithinTheClockSkew() throws {
        let t = Self.now.timeIntervalSince1970
        _ = try validate(TestTokenSigner.token(Self.claims(["exp": t - 30, "iat": t + 30])))
        _ = try validate(TestTokenSigner.token(Self.claims(["aud": ["my-app", "api"], "azp": "my-app"])))
        _ = try validate(TestTokenSigner.token(Self.claims(["azp": nil])))
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let token: @Sendable () -> String
        let reason: IDTokenValidationError.Reason
        var testDescription: String { name }
    }

    static let refused: [Case] = {
        let t = now.timeIntervalSince1970
        func signed(_ changes: [String: Any?], algorithm: String = "RS256") -> @Sendable () -> String {
            let token = TestTokenSigner.token(claims(changes), algorithm: algorithm)
            return { token }
        }
        let valid = TestTokenSigner.token(claims())
        let parts = valid.split(separator: ".").map(String.init)
        let otherPayload = Base64URL.encode(try! JSONSerialization.data(withJSONObject: claims(["sub": "mallory"])))
        let ecValid = TestTokenSigner.token(claims(), algorithm: "ES256").split(separator: ".").map(String.init)
        return [
            Case(name: "signature of another key", token: { TestTokenSigner.token(claims(), rsa: TestTokenSigner.otherRSAKey) }, reason: .badSignature),
            Case(name: "payload changed after signing", token: { "\(parts[0]).\(otherPayload).\(parts[2])" }, reason: .badSignature),
            Case(name: "ES256 payload changed after signing", token: { "\(ecValid[0]).\(otherPayload).\(ecValid[2])" }, reason: .badSignature),
            Case(name: "signature truncated", token: { "\(parts[0]).\(parts[1]).\(parts[2].dropLast(8))" }, reason: .badSignature),
            Case(name: "wrong issuer", token: signed(["iss": "https://evil.example"]), reason: .wrongIssuer),
            Case(name: "wrong audience", token: signed(["aud": "other-app", "azp": nil]), reason: .wrongAudience),
            Case(name: "azp names another client", token: signed(["azp": "other-app"]), reason: .wrongAuthorizedParty),
            Case(name: "several audiences, no azp", token: signed(["aud": ["my-app", "api"], "azp": nil]), reason: .wrongAuthorizedParty),
            Case(name: "expired beyond the skew", token: signed(["exp": t - 61]), reason: .expired),
            Case(name: "issued in the future", token: signed(["iat": t + 300]), reason: .issuedInFuture),
            Case(name: "wrong nonce", token: signed(["nonce": "another-nonce"]), reason: .nonceMismatch),
            Case(name: "no nonce", token: signed(["nonce": nil]), reason: .nonceMismatch),
            Case(name: "alg none", token: signed([:], algorithm: "none"), reason: .unsupportedAlgorithm),
            Case(name: "alg HS256", token: signed([:], algorithm: "HS256"), reason: .unsupportedAlgorithm),
            Case(name: "unknown kid", token: { TestTokenSigner.token(claims(), keyID: "rotated-away") }, reason: .unknownKey),
            Case(name: "kid of a key of another type", token: { TestTokenSigner.token(claims(), keyID: "ec-test") }, reason: .unknownKey),
            Case(name: "two parts", token: { "\(parts[0]).\(parts[1])" }, reason: .malformed),
            Case(name: "not base64url", token: { "\(parts[0]).@@@.\(parts[2])" }, reason: .malformed),
            Case(name: "header not JSON", token: { "\(Base64URL.encode(Data("nope".utf8))).\(parts[1]).\(parts[2])" }, reason: .malformed),
            Case(name: "empty", token: { "" }, reason: .malformed),
            Case(name: "no sub", token: signed(["sub": nil]), reason: .missingClaim),
            Case(name: "exp is a string", token: signed(["exp": "tomorrow"]), reason: .missingClaim),
            Case(name: "exp is a boolean", token: signed(["exp": true]), reason: .missingClaim),
            Case(name: "no iat", token: signed(["iat": nil]), reason: .missingClaim),
        ]
    }()

    @Test(arguments: refused)
    func refuses(_ testCase: Case) {
        #expect {
            _ = try validate(testCase.token())
        } throws: { error in
            let error = error as? IDTokenValidationError
            return error?.reason == testCase.reason && !(error?.detail.isEmpty ?? true)
        }
    }

    @Test func refusalReachesCallersAsAnInvalidResponseWebAuthError() {
        let error = TokenExchange.refused(IDTokenValidationError(.badSignature, "The ID token's signature does not verify."))
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains("signature"))
        #expect((error.underlyingError as? IDTokenValidationError)?.reason == .badSignature)
    }

    @Test func keySetSkipsKeysOfUnknownTypes() {
        #expect(TestTokenSigner.keySet.keys.map(\.kid) == ["rsa-test", "ec-test"])
    }
}
