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
}
