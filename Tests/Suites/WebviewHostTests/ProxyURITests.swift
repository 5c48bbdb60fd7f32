import Foundation
import Testing
import WebviewHost

/// A desktop proxy's URI with a user name and password (issue 40): split for libsoup and WebKit,
/// and never quoted with its password.
@Suite struct ProxyURITests {
    @Test("The URI without user info, the credential it carried, the proxy as a 407 names it", arguments: [
        ("http://corp-alice:proxy-pw-7@127.0.0.1:37827", "http://127.0.0.1:37827", "corp-alice", "proxy-pw-7", "127.0.0.1:37827"),
        ("http://corp-alice:proxy-pw-7@127.0.0.1:37827/", "http://127.0.0.1:37827/", "corp-alice", "proxy-pw-7", "127.0.0.1:37827"),
        ("HTTP://dom%5Calice:p%40ss%3Aword@proxy.example.com:3128", "HTTP://proxy.example.com:3128", "dom\\alice", "p@ss:word", "proxy.example.com:3128"),
        ("http://alice:p@ss@proxy.example.com:3128", "http://proxy.example.com:3128", "alice", "p@ss", "proxy.example.com:3128"),
        ("http://alice@proxy.example.com", "http://proxy.example.com", "alice", "", "proxy.example.com:80"),
        ("https://alice:pw@[::1]:8443", "https://[::1]:8443", "alice", "pw", "[::1]:8443"),
    ])
    func splits(text: String, uri: String, user: String, password: String, authority: String) {
        let proxy = ProxyURI(text)
        #expect(proxy.uri == uri)
        #expect(proxy.credential == ProxyCredential(user: user, password: password))
        #expect(proxy.authority == authority)
    }

    @Test("A URI without user info is kept; a SOCKS proxy keeps its own (GIO sends it in the handshake)", arguments: [
        "http://127.0.0.1:3128", "direct://", "socks5://alice:pw@127.0.0.1:1080", "http://[::1]:8080",
    ])
    func keeps(text: String) {
        let proxy = ProxyURI(text)
        #expect(proxy.uri == text)
        #expect(proxy.credential == nil)
    }

    @Test("Redacted in any text: every URI's user info, whatever its scheme", arguments: [
        ("could not be reached through the proxy http://corp-alice:proxy-pw-7@127.0.0.1:37827 (Message was restarted too many times)",
         "could not be reached through the proxy http://127.0.0.1:37827 (Message was restarted too many times)"),
        ("socks5://a:proxy-pw-7@h:1 and https://b:proxy-pw-7@h:2/x?y=z@w", "socks5://h:1 and https://h:2/x?y=z@w"),
        ("http://alice:proxy-pw-7@secret@h:3128", "http://h:3128"),
        ("no URI here, mail alice@example.com", "no URI here, mail alice@example.com"),
    ])
    func redacts(text: String, redacted: String) {
        #expect(ProxyURI.redacting(text) == redacted)
        #expect(!ProxyURI.redacting(text).contains("proxy-pw-7"))
    }

    @Test("A WebAuthError never carries a proxy's password, in its message or its description")
    func errorRedacts() {
        struct Underlying: Error, CustomStringConvertible { var description: String { "proxy http://u:proxy-pw-7@h:1 failed" } }
        let error = WebAuthError(.network, "through the proxy http://u:proxy-pw-7@h:1", underlyingError: Underlying())
        #expect(error.message == "through the proxy http://h:1")
        #expect(!"\(error)".contains("proxy-pw-7") && !(error.errorDescription ?? "").contains("proxy-pw-7"))
        #expect(!error.localizedDescription.contains("proxy-pw-7"))
    }

    @Test("The app's NetworkProxy refuses a URL with a user name or password, and no message quotes the password", arguments: [
        "http://alice:proxy-pw-7@proxy.example.com:3128", "ftp://alice:proxy-pw-7@proxy.example.com:21",
        "http://alice:proxy-pw-7@proxy.example.com:3128/path", "http://alice:proxy-pw-7@proxy.example.com:99999",
    ])
    func appProxyRefusesCredentials(address: String) {
        #expect {
            try NetworkProxy(address)
        } throws: { error in
            guard let error = error as? WebAuthError else { return false }
            return error.code == .invalidParameters && !"\(error)".contains("proxy-pw-7") && !error.localizedDescription.contains("proxy-pw-7")
        }
    }
}
