import Foundation
import Testing
import WebviewHost

@Suite("Response parsing: query and fragment, OAuth errors, state, malformed input")
struct WebAuthResponseTests {
    func parse(_ text: String, state: String? = nil) throws(WebAuthError) -> WebAuthResponse {
        try WebAuthResponse(callbackString: text, expectedState: state)
    }

    @Test func codeInQuery() throws {
        let response = try parse("http://127.0.0.1:8080/cb?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz", state: "xyz")
        #expect(response.code == "SplxlOBeZQQYbYS6WxSbIA")
        #expect(response.state == "xyz")
        #expect(try response.requireCode() == "SplxlOBeZQQYbYS6WxSbIA")
    }

    @Test func codeInFragment() throws {
        let response = try parse("com.example.app:/cb#code=abc&state=s1", state: "s1")
        #expect(response.code == "abc")
    }

    @Test("Parameters are percent- and form-decoded (+ is a space)")
    func decoding() throws {
        let response = try parse("http://127.0.0.1/cb?code=a%2Fb%3D&state=x+y%20z", state: "x y z")
        #expect(response.code == "a/b=")
        #expect(response.parameters["state"] == "x y z")
    }

    @Test("An OAuth error is .server with error, description and URI")
    func oauthError() {
        do {
            _ = try parse(
                "http://127.0.0.1/cb?error=access_denied&error_description=The+user+said+no&error_uri=https%3A%2F%2Fidp%2Fhelp&state=s",
                state: "s")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .server)
            #expect(error.serverError == .init(error: "access_denied", errorDescription: "The user said no", errorURI: "https://idp/help"))
            #expect(error.message.contains("access_denied"))
            #expect(error.message.contains("The user said no"))
        }
    }

    @Test("An OAuth error in the fragment is read too")
    func oauthErrorInFragment() {
        #expect(throws: WebAuthError.self) { try parse("com.example.app:/cb#error=login_required") }
        do { _ = try parse("com.example.app:/cb#error=login_required") } catch { #expect(error.serverError?.error == "login_required") }
    }

    @Test("State mismatch and missing state are refused", arguments: [
        "http://127.0.0.1/cb?code=a&state=other", "http://127.0.0.1/cb?code=a",
    ])
    func stateMismatch(_ text: String) {
        do {
            _ = try parse(text, state: "expected")
            Issue.record("expected stateMismatch")
        } catch {
            #expect(error.code == .stateMismatch)
        }
    }

    @Test("Without an expected state, any state is accepted")
    func noExpectedState() throws {
        #expect(try parse("http://127.0.0.1/cb?code=a&state=whatever").state == "whatever")
    }

    @Test("A missing code is invalidResponse when a code is required")
    func missingCode() throws {
        let response = try parse("http://127.0.0.1/cb?state=s", state: "s")
        #expect(response.code == nil)
        do {
            _ = try response.requireCode()
            Issue.record("expected invalidResponse")
        } catch {
            #expect(error.code == .invalidResponse)
        }
    }

    @Test("A parameter given twice (in the query, or in query and fragment) is refused", arguments: [
        "http://127.0.0.1/cb?code=a&code=b&state=s", "http://127.0.0.1/cb?code=a&state=s#code=b",
        "http://127.0.0.1/cb?state=s&state=s&code=a",
    ])
    func duplicates(_ text: String) {
        do {
            _ = try parse(text, state: "s")
            Issue.record("expected invalidResponse")
        } catch {
            #expect(error.code == .invalidResponse)
            #expect(error.message.contains("more than once"))
        }
    }

    @Test("Malformed percent-encoding is refused, not silently re-encoded", arguments: [
        "http://127.0.0.1/cb?code=%zz&state=s", "http://127.0.0.1/cb?code=abc%2&state=s", "http://127.0.0.1/cb?code=%E9&state=s",
    ])
    func malformedEncoding(_ text: String) {
        do {
            let response = try parse(text, state: "s")
            Issue.record("expected invalidResponse, got code \(response.code ?? "nil")")
        } catch {
            #expect(error.code == .invalidResponse)
        }
    }

    /// The library decodes form fields itself; Foundation's `removingPercentEncoding` (after `+`
    /// became a space) is the reference it must agree with, also on malformed input.
    @Test("Form decoding agrees with Foundation's on 2,000 generated values, malformed ones included")
    func decodingAgreesWithFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "Z", "0", "+", "%", "%2", "%20", "%2B", "%2b", "%25", "%e2%82%ac", "%E2%82", "%C3%A9", "%ff", "%zz",
                      "%0", "%00", "%7E", "~", "-", ".", "_", "!", "*", "'", "(", ")", "/", "?", ":", "@", "%F0%9F%98%80", "%3D", "%26"]
        for _ in 0..<2000 {
            let raw = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let expected = raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            let text = "http://127.0.0.1/cb?state=s&value=\(raw)"
            do {
                let response = try parse(text, state: "s")
                #expect(response.parameters["value"] == expected, "\(raw)")
            } catch {
                #expect(expected == nil, "\(raw): refused, Foundation decodes it to \(expected ?? "")")
                #expect(error.code == .invalidResponse)
            }
        }
    }
}

@Suite("Refusal rules: which addresses hand a sign-in over")
struct EmbeddedAgentRefusalMatchTests {
    @Test("An address matches a rule when it contains one of the rule's parts (2,000 generated addresses, the standard library's contains(_:) as reference)")
    func addressMatching() {
        let rule = EmbeddedAgentRefusal(name: "test", urlContains: ["disallowed_useragent", "%C3%A9/x", "aab"], pageTextContains: [])
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "b", "disallowed", "_useragent", "%C3%A9", "/x", "?", "&", "=", "aab", "ab", "%20", "disallowed_useragen"]
        for _ in 0..<2000 {
            let address = "https://accounts.example/" + (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let expected = rule.urlContains.contains { address.contains($0) }
            #expect((EmbeddedAgentRefusal.firstMatch(address: address, in: [rule]) != nil) == expected, "\(address)")
        }
        #expect(EmbeddedAgentRefusal.firstMatch(
            address: "https://accounts.google.com/signin/oauth/error?authError=Cg9kaXNhbGxvd2VkX3VzZXJhZ2VudA&error=disallowed_useragent",
            in: EmbeddedAgentRefusal.known)?.name == "Google: disallowed_useragent")
        #expect(EmbeddedAgentRefusal.firstMatch(address: "https://accounts.google.com/o/oauth2/auth?client_id=x", in: EmbeddedAgentRefusal.known) == nil)
    }
}
