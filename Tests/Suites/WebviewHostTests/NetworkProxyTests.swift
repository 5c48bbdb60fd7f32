import Foundation
import Testing
import WebviewHost

/// The app's proxy (issue 33): what parses, and the clear error for what does not.
@Suite struct NetworkProxyTests {
    @Test("Proxy URLs that work, kept as scheme://host:port", arguments: [
        ("http://proxy.example.com:3128", "http://proxy.example.com:3128"),
        ("HTTP://Proxy.example.com:3128/", "http://Proxy.example.com:3128"),
        ("https://proxy.example.com:443", "https://proxy.example.com:443"),
        ("socks5://127.0.0.1:1080", "socks5://127.0.0.1:1080"),
        ("  http://[::1]:8080  ", "http://[::1]:8080"),
    ])
    func parses(address: String, url: String) throws {
        let proxy = try NetworkProxy(address, bypassHosts: ["localhost", "*.intranet.example.com"])
        #expect(proxy.url.absoluteString == url)
        #expect(proxy.bypassHosts == ["localhost", "*.intranet.example.com"])
    }

    @Test("A proxy that does not parse: invalidParameters, naming the input and saying what to give", arguments: [
        ("proxy.example.com:3128", "is not a URL"),
        ("not a url", "is not a URL"),
        ("ftp://proxy.example.com:21", "has the scheme \"ftp\""),
        ("http://user:secret@proxy.example.com:3128", "user name or password"),
        ("http://proxy.example.com:3128/path", "has a path or query"),
        ("http://proxy.example.com:70000", "port"),
        ("", "is not a URL"),
    ])
    func refuses(address: String, says: String) {
        #expect {
            try NetworkProxy(address)
        } throws: { error in
            guard let error = error as? WebAuthError else { return false }
            // The input is quoted, except a password, which never is.
            let quoted = address.contains("@") ? error.message.contains("proxy.example.com") : error.message.contains("\"\(address)\"")
            return error.code == .invalidParameters && error.message.contains(says) && quoted && !error.message.contains("secret")
        }
    }

    @Test("An empty bypass host is refused")
    func emptyBypassHost() {
        #expect(throws: WebAuthError.self) { try NetworkProxy("http://proxy.example.com:3128", bypassHosts: ["localhost", " "]) }
    }
}
