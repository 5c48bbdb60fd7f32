@testable import SystemBrowserProvider
import Testing

/// The one thing the loopback listener parses by hand: the path of a request line libsoup
/// refused, to tell a malformed callback (ends the session) from anything else (ignored).
@Suite("Loopback listener: request-line path")
struct RequestLineTests {
    @Test(
        "The raw path: up to ? or #, percent-encoding kept, absolute-form targets reduced to their path",
        arguments: [
            ("GET /callback?code=ab%zz&state=s HTTP/1.1", "/callback"),
            ("GET /callback HTTP/1.1", "/callback"),
            ("GET /favicon.ico%zz HTTP/1.1", "/favicon.ico%zz"),
            ("GET /call%62ack?x=1 HTTP/1.1", "/call%62ack"),
            ("GET /callback#frag HTTP/1.1", "/callback"),
            ("POST /callback/extra?code=1 HTTP/1.1", "/callback/extra"),
            ("GET http://127.0.0.1:8080/callback?code=%zz HTTP/1.1", "/callback"),
            ("GET http://127.0.0.1:8080?code=%zz HTTP/1.1", "/"),
            ("GET ?code=1 HTTP/1.1", "/"),
            ("GET  /callback  HTTP/1.1", "/callback"),
        ])
    @MainActor
    func path(line: String, expected: String) {
        #expect(LoopbackRedirectListener.path(ofRequestLine: line) == expected)
    }

    @Test("A line without a target has no path", arguments: ["", "GET", "GARBAGE"])
    @MainActor
    func noPath(line: String) {
        #expect(LoopbackRedirectListener.path(ofRequestLine: line) == nil)
    }
}
