import Foundation
import Testing
import WebviewHost

@testable import SignIn

@Suite struct AuthorizationRequestTests {
    let endpoint = URL(string: "https://login.example.com/oauth2/auth")!
    let prepared = URL(string: "http://127.0.0.1:23682/callback")!

    func query(_ url: URL) throws -> [(String, String)] {
        let items = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        return items.map { ($0.name, $0.value ?? "") }
    }

    @Test func carriesEveryParameterOnceWithThePreparedRedirectURI() throws {
        let request = try AuthorizationRequest(
            clientID: "my app", redirectURI: prepared, scopes: ["profile", "api.read", "openid", "profile"],
            prompt: .login, loginHint: "alice@example.com",
            extraParameters: ["ui_locales": "fr", "claims": "{\"a\":1}+x&y=z"])
        let url = try request.url(endpoint: endpoint)
        let items = try query(url)
        let names = items.map(\.0)
        #expect(Set(names).count == names.count, "no parameter is sent twice")
        let values = Dictionary(uniqueKeysWithValues: items)
        #expect(values["response_type"] == "code")
        #expect(values["client_id"] == "my app")
        #expect(values["redirect_uri"] == "http://127.0.0.1:23682/callback")
        #expect(values["scope"] == "openid profile api.read")
        #expect(values["state"] == request.state)
        #expect(values["nonce"] == request.nonce)
        #expect(values["code_challenge"] == request.pkce.challenge)
        #expect(values["code_challenge_method"] == "S256")
        #expect(values["prompt"] == "login")
        #expect(values["login_hint"] == "alice@example.com")
        #expect(values["ui_locales"] == "fr")
        #expect(values["claims"] == "{\"a\":1}+x&y=z", "reserved characters survive encoding")
        #expect(url.absoluteString.hasPrefix("https://login.example.com/oauth2/auth?response_type=code&"))
        #expect(!url.absoluteString.contains("+x"), "a literal + would be read as a space")
        #expect(request.state != request.nonce)
    }

    @Test func alwaysAsksForOpenIDAndOmitsUnsetOptions() throws {
        let request = try AuthorizationRequest(clientID: "c", redirectURI: prepared, scopes: ["email"])
        let values = Dictionary(uniqueKeysWithValues: try query(try request.url(endpoint: endpoint)))
        #expect(values["scope"] == "openid email")
        #expect(values["prompt"] == nil)
        #expect(values["login_hint"] == nil)
    }

    @Test func keepsAQueryTheEndpointAlreadyHas() throws {
        let request = try AuthorizationRequest(clientID: "c", redirectURI: prepared, scopes: [])
        let url = try request.url(endpoint: URL(string: "https://login.example.com/auth?tenant=x")!)
        #expect(try query(url).first! == ("tenant", "x"))
    }

    @Test(arguments: ["client_id", "state", "nonce", "redirect_uri", "code_challenge", "scope"])
    func refusesExtraParametersThatRepeatProtocolOnes(name: String) {
        #expect {
            _ = try AuthorizationRequest(clientID: "c", redirectURI: prepared, scopes: [], extraParameters: [name: "x"])
        } throws: { error in
            (error as? WebAuthError)?.code == .invalidParameters
        }
    }
}
