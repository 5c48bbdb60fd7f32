import WebviewHostGTK3
import Foundation
import GLibSupport

/// The identity provider's "login page" for the scenarios: a SoupServer on 127.0.0.1 (kernel-chosen
/// port). `GET /authorize?redirect_uri=R&...` sends the browser on to R with every other query
/// parameter, by a 302 (query) or, with `response_mode=form_post`, by an auto-submitting form,
/// or, with `response_mode=script`, by a page whose own script goes on after a timer (only a
/// browser that runs JavaScript gets there: real Chromium, not the scripted test browser).
/// `GET /pending` is a page that never goes on.
@MainActor
final class LoginServer {
    let server: UnsafeMutablePointer<SoupServer>
    let port: Int
    /// Paths requested, in order.
    private(set) var requests: [String] = []

    init() throws {
        let server = wvh_soup_server_new()!
        _ = try withGError { soup_server_listen_local(server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, $0) }
        self.server = server
        port = boundPort(of: server)
        let box = Unmanaged.passRetained(LoginBox(self)).toOpaque()
        soup_server_add_handler(
            server, nil,
            { _, message, _, _, data in
                let box = Unmanaged<LoginBox>.fromOpaque(data!).takeUnretainedValue()
                MainActor.assumeIsolated { [message = SendablePointer(message!)] in
                    box.server?.respond(to: message.pointer)
                }
            }, box, { data in Unmanaged<LoginBox>.fromOpaque(data!).release() })
    }

    func close() {
        soup_server_disconnect(server)
    }

    /// The authorization URL for `redirectURI` with `parameters` to echo back.
    func authorizationURL(redirectURI: URL, parameters: [(String, String)]) -> URL {
        var components = URLComponents(string: "http://127.0.0.1:\(port)/authorize")!
        components.queryItems = [URLQueryItem(name: "redirect_uri", value: redirectURI.absoluteString)]
            + parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        // `+` in values must not read as a space on the way back.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }

    private func respond(to message: OpaquePointer) {
        let uri = soup_server_message_get_uri(message)
        let text = String(cString: g_uri_to_string(uri))
        let components = URLComponents(string: text)
        requests.append(components?.path ?? "?")
        if components?.path == "/pending" {
            // A page that shows and never goes on (the person has not signed in yet).
            let page = "<html><body><p>Waiting for you to sign in.</p></body></html>"
            soup_server_message_set_status(message, 200, nil)
            soup_server_message_set_response(message, "text/html", SOUP_MEMORY_COPY, page, gsize(page.utf8.count))
            return
        }
        guard components?.path == "/authorize", let items = components?.queryItems,
            let redirect = items.first(where: { $0.name == "redirect_uri" })?.value
        else {
            soup_server_message_set_status(message, 404, nil)
            return
        }
        let echoed = items.filter { $0.name != "redirect_uri" && $0.name != "response_mode" }
        if items.contains(where: { $0.name == "response_mode" && $0.value == "form_post" }) {
            let inputs = echoed.map {
                "<input type=\"hidden\" name=\"\(escape($0.name))\" value=\"\(escape($0.value ?? ""))\">"
            }.joined()
            let page = "<html><body onload=\"document.forms[0].submit()\"><form method=\"post\" action=\"\(escape(redirect))\">\(inputs)</form></body></html>"
            soup_server_message_set_status(message, 200, nil)
            soup_server_message_set_response(message, "text/html", SOUP_MEMORY_COPY, page, gsize(page.utf8.count))
        } else if items.contains(where: { $0.name == "response_mode" && $0.value == "script" }) {
            var target = URLComponents(string: redirect)!
            target.queryItems = echoed
            let location = target.url!.absoluteString
            // The target as a JSON string literal (no `</script>` can end the script early).
            let literal = String(decoding: (try? JSONEncoder().encode(location)) ?? Data("\"\"".utf8), as: UTF8.self)
                .replacingOccurrences(of: "<", with: "\\u003c")
            let page = """
                <html><head><title>Signing in</title></head><body><p id="status">Signing you in...</p>
                <script>setTimeout(function () { document.getElementById("status").textContent = "Going on";
                  window.location.replace(\(literal)); }, 300);</script></body></html>
                """
            soup_server_message_set_status(message, 200, nil)
            soup_server_message_set_response(message, "text/html", SOUP_MEMORY_COPY, page, gsize(page.utf8.count))
        } else if let raw = items.first(where: { $0.name == "raw_query" })?.value {
            // The callback's query exactly as given (a malformed percent-escape, say).
            // Set by hand: soup_server_message_set_redirect refuses a malformed URI.
            soup_server_message_set_status(message, 302, nil)
            soup_message_headers_replace(soup_server_message_get_response_headers(message), "Location", redirect + "?" + raw)
        } else {
            var target = URLComponents(string: redirect)!
            target.queryItems = echoed
            target.percentEncodedQuery = target.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            soup_server_message_set_redirect(message, 302, target.url!.absoluteString)
        }
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }
}

private final class LoginBox {
    weak var server: LoginServer?
    init(_ server: LoginServer) { self.server = server }
}

struct SendablePointer: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

/// A listener bound to 127.0.0.1 on a kernel-chosen port, held until `close()` (a "busy" port),
/// or closed at once to learn a free port.
@MainActor
final class PortHolder {
    let server: UnsafeMutablePointer<SoupServer>
    let port: Int
    init(ipv6: Bool = false) throws {
        let server = wvh_soup_server_new()!
        _ = try withGError {
            soup_server_listen_local(server, 0, ipv6 ? SOUP_SERVER_LISTEN_IPV6_ONLY : SOUP_SERVER_LISTEN_IPV4_ONLY, $0)
        }
        self.server = server
        port = boundPort(of: server)
    }
    func close() {
        soup_server_disconnect(server)
        g_object_unref(server)
    }
}

/// Whether a TCP connect to `host:port` is refused now (`g_socket_client_connect_to_host`).
@MainActor
func connectionRefused(host: String, port: Int) -> Bool {
    let client = g_socket_client_new()!
    defer { g_object_unref(client) }
    g_socket_client_set_timeout(client, 2)
    var error: UnsafeMutablePointer<GError>?
    if let connection = g_socket_client_connect_to_host(client, host, guint16(port), nil, &error) {
        g_object_unref(connection)
        return false
    }
    let failure = error.map { GLibError(consuming: $0) }
    return failure?.isIOError(G_IO_ERROR_CONNECTION_REFUSED) == true
}
