import Foundation
import Testing
import WebviewHost

/// `SignInCookie`: what a view can set (RFC 6265's cookie name and value characters, one host
/// name) and what it refuses before anything loads.
@Suite struct SignInCookieTests {
    @Test("A broker's cookie is set as given", arguments: [
        SignInCookie(name: "x-ms-RefreshTokenCredential", value: "eyJhbGciOiJIUzI1NiJ9.eyJyZWZyZXNoX3Rva2VuIjoiYSJ9.c2ln", host: "login.microsoftonline.com"),
        SignInCookie(name: "x-ms-DeviceCredential", value: "a=b/c+d", host: "127.0.0.1", isSecure: false),
        SignInCookie(name: "n", value: "v", host: "sso.contoso-intranet.example"),
    ])
    func accepted(_ cookie: SignInCookie) {
        #expect(cookie.problem == nil, "\(cookie.problem ?? "")")
    }

    @Test("A cookie a view cannot send is refused, saying why", arguments: [
        (SignInCookie(name: "", value: "v", host: "h.example"), "name"),
        (SignInCookie(name: "a b", value: "v", host: "h.example"), "name"),
        (SignInCookie(name: "a=b", value: "v", host: "h.example"), "name"),
        (SignInCookie(name: "n", value: "", host: "h.example"), "value"),
        (SignInCookie(name: "n", value: "a;b", host: "h.example"), "value"),
        (SignInCookie(name: "n", value: "a b", host: "h.example"), "value"),
        (SignInCookie(name: "n", value: "a\"b", host: "h.example"), "value"),
        (SignInCookie(name: "n", value: "é", host: "h.example"), "value"),
        (SignInCookie(name: "n", value: "v", host: ""), "host name"),
        (SignInCookie(name: "n", value: "v", host: ".microsoftonline.com"), "host name"),
        (SignInCookie(name: "n", value: "v", host: "login.microsoftonline.com:443"), "host name"),
        (SignInCookie(name: "n", value: "v", host: "*.example"), "host name"),
        (SignInCookie(name: "n", value: "v", host: "a/b"), "host name"),
    ])
    func refused(_ cookie: SignInCookie, _ said: String) {
        let problem = cookie.problem
        #expect(problem?.contains(said) == true, "\(cookie): \(problem ?? "nil")")
    }

    @Test func aCookieForAURLIsForItsHostAndSecureOverHTTPSOnly() throws {
        let https = SignInCookie(name: "n", value: "v", for: try #require(URL(string: "https://Login.MicrosoftOnline.com/common/oauth2/v2.0/authorize")))
        #expect(https.host == "login.microsoftonline.com")
        #expect(https.isSecure)
        let loopback = SignInCookie(name: "n", value: "v", for: try #require(URL(string: "http://127.0.0.1:8080/authorize")))
        #expect(loopback.host == "127.0.0.1")
        #expect(!loopback.isSecure)
    }
}
