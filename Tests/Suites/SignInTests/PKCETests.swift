import Foundation
import WebviewHost
import Testing

@testable import SignIn

@Suite struct PKCETests {
    @Test func reproducesRFC7636AppendixB() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.method == "S256")
    }

    @Test func newVerifiersAreLongRandomAndUnreservedOnly() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let verifiers = (0..<200).map { _ in PKCE().verifier }
        #expect(Set(verifiers).count == verifiers.count)
        for verifier in verifiers {
            #expect((43...128).contains(verifier.count))
            #expect(verifier.allSatisfy(allowed.contains))
        }
    }

    @Test func stateAndNonceAreRandom256BitValues() throws {
        let values = (0..<200).map { _ in RandomValue.make() }
        #expect(Set(values).count == values.count)
        for value in values {
            #expect(value.count == 43)
            #expect(try #require(Base64URL.decode(value)).count == 32)
        }
    }

    @Test func base64URLRoundTripsAndRejectsOtherAlphabets() {
        let bytes = Data((0...255).map { UInt8($0) })
        #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        #expect(Base64URL.decode("ab+/") == nil)
        #expect(Base64URL.decode("abc=") == nil)
        #expect(Base64URL.decode("a") == nil)
    }
}
