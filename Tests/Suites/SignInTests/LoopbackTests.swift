import Foundation
import Testing
import WebviewHost

@testable import SignIn

/// Plain http is accepted only to this machine: hosts are parsed as addresses, never compared
/// by prefix (`http://127.evil.example/` is a DNS name anyone can point anywhere).
@Suite struct LoopbackTests {
    struct Host: CustomTestStringConvertible, Sendable {
        let url: String
        let loopback: Bool
        var testDescription: String { "\(url) -> \(loopback ? "loopback" : "not loopback")" }
    }

    static let hosts: [Host] = [
        // IPv4 127.0.0.0/8, dotted quad
        .init(url: "http://127.0.0.1/", loopback: true),
        .init(url: "http://127.0.0.1:8080/cb", loopback: true),
        .init(url: "http://127.255.3.4/", loopback: true),
        .init(url: "http://127.0.0.2/callback", loopback: true),
        .init(url: "http://user@127.0.0.1/", loopback: true),
        // names and forms that only look like it
        .init(url: "http://127.evil.example/", loopback: false),
        .init(url: "http://127.0.0.1.evil.example/", loopback: false),
        .init(url: "http://127.0.0.1.nip.io/", loopback: false),
        .init(url: "http://127.1/", loopback: false),
        .init(url: "http://0x7f.0.0.1/", loopback: false),
        .init(url: "http://0177.0.0.1/", loopback: false),
        .init(url: "http://2130706433/", loopback: false),
        .init(url: "http://127.0.0.01/", loopback: false),
        .init(url: "http://127.0.0.1./", loopback: false),
        .init(url: "http://127.0.0.1%2e/", loopback: false),
        .init(url: "http://%31%32%37.0.0.1/", loopback: false),
        .init(url: "http://128.0.0.1/", loopback: false),
        .init(url: "http://126.255.255.255/", loopback: false),
        .init(url: "http://0.0.0.0/", loopback: false),
        .init(url: "http://10.0.0.1/", loopback: false),
        // IPv6
        .init(url: "http://[::1]/", loopback: true),
        .init(url: "http://[::1]:23682/cb", loopback: true),
        .init(url: "http://[0:0:0:0:0:0:0:1]/", loopback: true),
        .init(url: "http://[0000:0000:0000:0000:0000:0000:0000:0001]/", loopback: true),
        .init(url: "http://[::2]/", loopback: false),
        .init(url: "http://[::]/", loopback: false),
        .init(url: "http://[::ffff:127.0.0.1]/", loopback: false),
        .init(url: "http://[::1%25lo]/", loopback: false),
        .init(url: "http://[fe80::1]/", loopback: false),
        // localhost, exactly
        .init(url: "http://localhost/", loopback: true),
        .init(url: "http://LocalHost:8080/", loopback: true),
        .init(url: "http://localhost./", loopback: false),
        .init(url: "http://localhost.evil.example/", loopback: false),
        .init(url: "http://evil.localhost/", loopback: false),
        .init(url: "http://localhostx/", loopback: false),
        // other hosts
        .init(url: "http://example.com/", loopback: false),
        .init(url: "http:///path", loopback: false),
    ]

    /// One rule (issue 35): the configuration's check, the redirect URI's `isLoopback` (which the
    /// policy, the providers and the listener ask) and `LoopbackHost` agree on every spelling.
    @Test("http is accepted only to a loopback host, by the one rule everything asks", arguments: hosts)
    func plainHTTP(_ host: Host) throws {
        let url = try #require(URL(string: host.url))
        #expect(url.isHTTPSOrLoopback == host.loopback)
        #expect(url.isLoopbackHTTP == host.loopback)
        #expect((LoopbackHost(of: url) != nil) == host.loopback)
        if let redirect = try? RedirectURI(url) {
            #expect(redirect.isLoopback == host.loopback)
        } else {
            #expect(!host.loopback, "a loopback URL is a valid redirect URI")
        }
    }

    @Test("A loopback host's listening addresses and the spelling a browser writes", arguments: [
        ("127.0.0.1", ["127.0.0.1"], "127.0.0.1"), ("127.0.0.2", ["127.0.0.2"], "127.0.0.2"),
        ("[::1]", ["::1"], "[::1]"), ("[0:0:0:0:0:0:0:1]", ["::1"], "[::1]"), ("[0000::1]", ["::1"], "[::1]"),
        ("localhost", ["127.0.0.1", "::1"], "localhost"), ("LocalHost", ["127.0.0.1", "::1"], "localhost"),
    ])
    func listeningAddresses(_ host: String, _ addresses: [String], _ written: String) throws {
        let loopback = try #require(LoopbackHost(host))
        #expect(loopback.socketAddresses == addresses)
        #expect(loopback.description == written)
    }

    @Test("A redirect URI written with a long IPv6 loopback matches the browser's short form")
    func ipv6SpellingsMatch() throws {
        let redirect = try RedirectURI(URL(string: "http://[0:0:0:0:0:0:0:1]:8400/callback")!)
        #expect(redirect.matches(URL(string: "http://[::1]:8400/callback?code=c")!))
        #expect(!redirect.matches(URL(string: "http://[::2]:8400/callback?code=c")!))
        #expect(!redirect.matches(URL(string: "http://127.0.0.1:8400/callback?code=c")!))
    }

    @Test("https is accepted to any host, other schemes never", arguments: [
        ("https://login.example.com/", true), ("https://127.evil.example/", true), ("HTTPS://[::1]/", true),
        ("ftp://127.0.0.1/", false), ("file:///etc/passwd", false), ("com.example.app:/cb", false),
    ])
    func otherSchemes(_ text: String, _ accepted: Bool) throws {
        #expect(try #require(URL(string: text)).isHTTPSOrLoopback == accepted)
    }

    @Test("An authority on a non-loopback http host is refused", arguments: [
        "http://127.evil.example/", "http://127.0.0.1.evil.example/realm", "http://127.1/", "http://localhost./",
    ])
    func authorityRefused(_ authority: String) throws {
        let configuration = PublicClientApplicationConfiguration(
            clientID: "app", authority: try #require(URL(string: authority)),
            redirectURI: URL(string: "http://127.0.0.1/callback")!)
        do {
            _ = try PublicClientApplication(configuration: configuration)
            Issue.record("\(authority) was accepted as an authority")
        } catch {
            #expect(error.code == .invalidParameters)
        }
    }

    @Test("A loopback http authority is accepted", arguments: [
        "http://127.0.0.1:5000/", "http://[::1]:5000/realm", "http://localhost/", "https://login.example.com/",
    ])
    func authorityAccepted(_ authority: String) throws {
        _ = try PublicClientApplication(configuration: .init(
            clientID: "app", authority: try #require(URL(string: authority)),
            redirectURI: URL(string: "http://127.0.0.1/callback")!))
    }

    @Test("An http redirect URI must be loopback; https and app schemes are fine", arguments: [
        ("http://127.evil.example/callback", false), ("http://app.example.com/callback", false),
        ("http://127.0.0.1/callback", true), ("http://[::1]:8080/cb", true), ("http://localhost/cb", true),
        ("https://app.example.com/callback", true), ("com.example.app:/oauth2redirect", true),
    ])
    func redirectURI(_ text: String, _ accepted: Bool) throws {
        let configuration = PublicClientApplicationConfiguration(
            clientID: "app", authority: URL(string: "https://login.example.com/")!,
            redirectURI: try #require(URL(string: text)))
        do {
            _ = try PublicClientApplication(configuration: configuration)
            #expect(accepted, "\(text) was accepted as a redirect URI")
        } catch {
            #expect(!accepted, "\(text) was refused: \(error)")
            #expect(error.code == .invalidParameters)
        }
    }

    @Test("Discovery refuses an endpoint on plain http to a host that only looks like loopback", arguments: [
        "http://127.evil.example/token", "http://127.0.0.1.evil.example/token", "http://0x7f.0.0.1/token",
    ])
    func discoveryEndpoint(_ endpoint: String) throws {
        let issuer = "http://127.0.0.1:5000"
        let good = URL(string: "http://127.0.0.1:5000/endpoint")!
        let bad = try #require(URL(string: endpoint))
        let documents = [
            OpenIDProviderMetadata(issuer: issuer, authorizationEndpoint: bad, tokenEndpoint: good, jwksURI: good),
            OpenIDProviderMetadata(issuer: issuer, authorizationEndpoint: good, tokenEndpoint: bad, jwksURI: good),
            OpenIDProviderMetadata(issuer: issuer, authorizationEndpoint: good, tokenEndpoint: good, jwksURI: bad),
        ]
        let source = URL(string: issuer + "/.well-known/openid-configuration")!
        for document in documents {
            do {
                try Authority.check(document, issuer: issuer, from: source)
                Issue.record("\(endpoint) was accepted as an endpoint")
            } catch {
                #expect(error.code == .invalidResponse)
                #expect(error.url == bad)
            }
        }
        try Authority.check(
            OpenIDProviderMetadata(issuer: issuer, authorizationEndpoint: good, tokenEndpoint: URL(string: "http://[::1]/t")!, jwksURI: URL(string: "https://keys.example/")!),
            issuer: issuer, from: source)
    }
}
