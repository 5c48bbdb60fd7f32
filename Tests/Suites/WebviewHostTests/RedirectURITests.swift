import Foundation
import Testing
import WebviewHost

@Suite("Redirect matching: scheme/host case-insensitive, port and path exact, query and fragment ignored, never a prefix")
struct RedirectURITests {
    struct Case: CustomTestStringConvertible, Sendable {
        let redirect: String
        let candidate: String
        let matches: Bool
        var testDescription: String { "\(redirect) vs \(candidate) -> \(matches)" }
    }

    static let table: [Case] = [
        // exact, and query/fragment ignored
        .init(redirect: "http://127.0.0.1:8080/callback", candidate: "http://127.0.0.1:8080/callback?code=a&state=b", matches: true),
        .init(redirect: "http://127.0.0.1:8080/callback", candidate: "http://127.0.0.1:8080/callback#code=a", matches: true),
        // scheme and host case
        .init(redirect: "http://localhost:8080/callback", candidate: "HTTP://LocalHost:8080/callback?code=a", matches: true),
        .init(redirect: "https://App.Example.com/cb", candidate: "https://app.example.com/cb?code=a", matches: true),
        // path is case-sensitive and exact
        .init(redirect: "http://127.0.0.1:8080/callback", candidate: "http://127.0.0.1:8080/Callback?code=a", matches: false),
        .init(redirect: "http://127.0.0.1:8080/callback", candidate: "http://127.0.0.1:8080/callback/extra?code=a", matches: false),
        .init(redirect: "http://127.0.0.1:8080/callback", candidate: "http://127.0.0.1:8080/callbackx", matches: false),
        // trailing slash
        .init(redirect: "http://127.0.0.1:8080/callback", candidate: "http://127.0.0.1:8080/callback/?code=a", matches: false),
        .init(redirect: "http://127.0.0.1:8080/callback/", candidate: "http://127.0.0.1:8080/callback?code=a", matches: false),
        .init(redirect: "https://app.example.com", candidate: "https://app.example.com/?code=a", matches: true),
        // port
        .init(redirect: "http://127.0.0.1:8080/callback", candidate: "http://127.0.0.1:8081/callback?code=a", matches: false),
        .init(redirect: "http://127.0.0.1/callback", candidate: "http://127.0.0.1:8080/callback?code=a", matches: false),
        .init(redirect: "http://127.0.0.1:8080/callback", candidate: "http://127.0.0.1/callback?code=a", matches: false),
        .init(redirect: "http://127.0.0.1/callback", candidate: "http://127.0.0.1:80/callback?code=a", matches: true),
        .init(redirect: "https://app.example.com:443/cb", candidate: "https://app.example.com/cb", matches: true),
        // scheme and host differ
        .init(redirect: "http://127.0.0.1:8080/callback", candidate: "https://127.0.0.1:8080/callback", matches: false),
        .init(redirect: "http://127.0.0.1:8080/callback", candidate: "http://localhost:8080/callback", matches: false),
        .init(redirect: "http://127.0.0.1:8080/callback", candidate: "http://127.0.0.1.evil.example:8080/callback", matches: false),
        .init(redirect: "http://127.0.0.1:8080/callback", candidate: "http://user@127.0.0.1:8080/callback", matches: false),
        // a login URL carrying redirect_uri= in its query is not the redirect (no prefix match)
        .init(
            redirect: "http://127.0.0.1:8080/callback",
            candidate: "http://127.0.0.1:9000/login?redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2Fcallback",
            matches: false),
        .init(
            redirect: "http://127.0.0.1:8080/callback",
            candidate: "https://idp.example.com/authorize?redirect_uri=http://127.0.0.1:8080/callback&code=x",
            matches: false),
        // hosts read without IDNA (ASCII letters, digits, '.', '-', '_') and with it (Unicode, Punycode)
        .init(redirect: "https://My_App-1.Example.com/cb", candidate: "https://my_app-1.example.COM/cb?code=a", matches: true),
        .init(redirect: "https://my_app.example.com/cb", candidate: "https://myapp.example.com/cb?code=a", matches: false),
        .init(redirect: "https://xn--bcher-kva.example/cb", candidate: "https://XN--BCHER-KVA.example/cb?code=a", matches: true),
        .init(redirect: "https://xn--bcher-kva.example/cb", candidate: "https://bcher-kva.example/cb?code=a", matches: false),
        // IPv6 loopback
        .init(redirect: "http://[::1]:8080/callback", candidate: "http://[::1]:8080/callback?code=a", matches: true),
        .init(redirect: "http://[::1]:8080/callback", candidate: "http://127.0.0.1:8080/callback?code=a", matches: false),
        // custom schemes (RFC 8252 private-use)
        .init(redirect: "com.example.app:/oauth2redirect", candidate: "com.example.app:/oauth2redirect?code=a", matches: true),
        .init(redirect: "com.example.app:/oauth2redirect", candidate: "COM.EXAMPLE.APP:/oauth2redirect?code=a", matches: true),
        .init(redirect: "com.example.app:/oauth2redirect", candidate: "com.example.app:/oauth2redirect/more?code=a", matches: false),
        .init(redirect: "com.example.app:/oauth2redirect", candidate: "com.example.other:/oauth2redirect?code=a", matches: false),
        .init(redirect: "com.example.app://callback", candidate: "com.example.app://callback?code=a", matches: true),
        .init(redirect: "com.example.app://callback", candidate: "com.example.app:/callback?code=a", matches: false),
        .init(redirect: "msauth.com.example.app://auth", candidate: "msauth.com.example.app://auth#code=a", matches: true),
    ]

    @Test(arguments: table)
    func matching(_ entry: Case) throws {
        let redirect = try RedirectURI(URL(string: entry.redirect)!)
        #expect(redirect.matches(URL(string: entry.candidate)!) == entry.matches)
    }

    @Test("Relative URIs and URIs with a fragment are refused with invalidParameters", arguments: [
        "/callback", "callback", "http://127.0.0.1/callback#frag",
    ])
    func invalidRedirects(_ text: String) {
        #expect(throws: WebAuthError.self) { try RedirectURI(URL(string: text)!) }
        do {
            _ = try RedirectURI(URL(string: text)!)
        } catch {
            #expect(error.code == .invalidParameters)
            #expect(error.message.contains(text))
        }
    }

    @Test("Loopback detection (RFC 8252 7.3)", arguments: [
        ("http://127.0.0.1/cb", true), ("http://[::1]:9/cb", true), ("http://localhost:8080/", true),
        ("https://127.0.0.1/cb", false), ("com.example.app:/cb", false), ("http://example.com/cb", false),
        // names and forms that only look like loopback: the listener could not bind them
        ("http://127.evil.example/cb", false), ("http://127.0.0.1.evil.example/cb", false), ("http://127.1/cb", false),
        ("http://0x7f.0.0.1/cb", false), ("http://127.0.0.1./cb", false), ("http://localhost./cb", false),
        ("http://localhost.evil.example/cb", false), ("http://[::ffff:127.0.0.1]/cb", false),
        ("http://LOCALHOST:8080/cb", true),
    ])
    func loopback(_ text: String, _ expected: Bool) throws {
        #expect(try RedirectURI(URL(string: text)!).isLoopback == expected)
    }
}
