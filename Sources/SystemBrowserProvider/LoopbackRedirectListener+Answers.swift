import CGLib
import Foundation
import WebviewHost

/// Answering one request libsoup has read: the `Host` check, the request as ``Request`` for
/// ``onRequest``, and its ``Answer`` written back (every answer closes its connection and is kept
/// out of caches).
extension LoopbackRedirectListener {
    /// Called by libsoup's handler for every request it parsed.
    func respond(to message: OpaquePointer) {
        answered.insert(UInt(bitPattern: UnsafeMutableRawPointer(message)))
        let headers = soup_server_message_get_response_headers(message)
        // One request per connection: the request line of each is read before libsoup sees it.
        soup_message_headers_replace(headers, "Connection", "close")
        guard hasOwnHost(message) else {
            // Another name for this address (DNS rebinding) or none: not the browser coming back.
            soup_server_message_set_status(message, 421, nil)
            Self.setPage(message, .misdirected)
            return
        }
        let request = Self.request(from: message)
        let answer =
            closing
            ? .builtIn(status: 410, .alreadyEnded)
            : onRequest?(request) ?? .builtIn(status: 404, .notFound)
        // The callback URL carries the code: keep it out of caches and Referer headers.
        soup_message_headers_replace(headers, "Cache-Control", "no-store")
        soup_message_headers_replace(headers, "Referrer-Policy", "no-referrer")
        switch answer {
        case .builtIn(let status, let page):
            soup_server_message_set_status(message, guint(status), nil)
            Self.setPage(message, page)
        case .page(let status, let html):
            soup_server_message_set_status(message, guint(status), nil)
            Self.setPage(message, html)
        case .redirect(let url):
            soup_server_message_set_redirect(message, 303, url.absoluteString)
        case .found(let url):
            soup_server_message_set_redirect(message, 302, url.absoluteString)
        }
    }

    /// The method, path and parameters (query, or the body of a form POST) of a `SoupServerMessage`.
    private static func request(from message: OpaquePointer) -> Request {
        let method = soup_server_message_get_method(message).map { String(cString: $0) } ?? ""
        let uri = soup_server_message_get_uri(message)
        let path = g_uri_get_path(uri).map { String(cString: $0) } ?? "/"
        var parameters = g_uri_get_query(uri).map { String(cString: $0) }
        if method == "POST" {
            let contentType = soup_message_headers_get_content_type(
                soup_server_message_get_request_headers(message), nil
            ).map { String(cString: $0) }
            let body = soup_server_message_get_request_body(message)!
            let bytes = soup_message_body_flatten(body)!
            var size: gsize = 0
            let data = g_bytes_get_data(bytes, &size)
            let text = data.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(size)), as: UTF8.self) }
            g_bytes_unref(bytes)
            parameters = contentType?.lowercased() == "application/x-www-form-urlencoded" ? (text ?? "") : nil
        }
        return Request(method: method, path: path.isEmpty ? "/" : path, formEncodedParameters: parameters)
    }

    /// One of the library's pages in the first language of the request's `Accept-Language` the
    /// library has (English without one), with `Content-Language` and `Vary: Accept-Language`.
    private static func setPage(_ message: OpaquePointer, _ page: BrowserCompletionPage) {
        let accepted = soup_message_headers_get_one(soup_server_message_get_request_headers(message), "Accept-Language")
            .map { WebviewLocalization.languages(fromAcceptLanguage: String(cString: $0)) } ?? []
        let (html, language) = page.rendered(for: accepted)
        let headers = soup_server_message_get_response_headers(message)
        soup_message_headers_replace(headers, "Content-Language", language)
        soup_message_headers_replace(headers, "Vary", "Accept-Language")
        setPage(message, html)
    }

    private static func setPage(_ message: OpaquePointer, _ html: String) {
        let utf8 = Array(html.utf8)
        utf8.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                soup_server_message_set_response(
                    message, "text/html; charset=utf-8", SOUP_MEMORY_COPY, chars.baseAddress, gsize(chars.count))
            }
        }
    }
}
