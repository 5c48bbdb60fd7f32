public import Foundation

/// What came back to the redirect URI: the callback URL and its parameters, read from the query
/// and the fragment.
public struct WebAuthResponse: Sendable, Hashable {
    /// The URL the provider stopped at.
    public let callbackURL: URL
    /// Every response parameter, from the query and the fragment, percent-decoded.
    public let parameters: [String: String]

    /// The authorization code, when the response carries one.
    public var code: String? { parameters["code"] }
    /// The `state` the server echoed.
    public var state: String? { parameters["state"] }

    /// Reads a callback URL.
    ///
    /// No error this throws carries a secret: messages name a parameter and its problem, never a
    /// value or the query, and the error's `url` is the callback without its user info, query
    /// and fragment (it reaches `didFail` notifications and logs). Only the server's own `error`
    /// and `error_description` are quoted, on one short line (see ``WebAuthError/server(_:url:)``).
    ///
    /// - Throws: `.server` when the callback carries an OAuth `error`; `.stateMismatch` when
    ///   `expectedState` is given and differs (or is missing); `.invalidResponse` for malformed
    ///   percent-encoding or a parameter given twice (RFC 6749 3.1).
    public init(callbackURL: URL, expectedState: String? = nil) throws(WebAuthError) {
        try self.init(callbackURL: callbackURL, expectedState: expectedState, throwingOAuthError: true)
    }

    /// As ``init(callbackURL:expectedState:)``; with `throwingOAuthError` false, a callback that
    /// carries an OAuth `error` is a response like any other (its parameters hold the error): what
    /// a session that returns the URL reached, OAuth or not, gives back.
    package init(callbackURL: URL, expectedState: String?, throwingOAuthError: Bool) throws(WebAuthError) {
        try self.init(callback: CallbackURL(callbackURL), expectedState: expectedState, throwingOAuthError: throwingOAuthError)
    }

    /// Reads a callback already parsed (the one the redirect match compared): the one place a
    /// callback's parameters are read and its `state` checked.
    package init(callback: CallbackURL, expectedState: String?, throwingOAuthError: Bool) throws(WebAuthError) {
        guard callback.isWellFormed else {
            throw WebAuthError(
                .invalidResponse,
                "The callback URL is malformed (invalid characters or percent-encoding); it was not accepted.",
                url: URL(string: String((callback.text ?? callback.url.absoluteString).prefix { $0 != "?" && $0 != "#" }))
                    .flatMap(Self.withoutQueryAndFragment))
        }
        let callbackURL = callback.url
        guard let components = callback.components else {
            throw WebAuthError(.invalidResponse, "The callback URL could not be parsed.", url: Self.withoutQueryAndFragment(callbackURL))
        }
        let shownURL = Self.withoutQueryAndFragment(components)
        var parameters: [String: String] = [:]
        for part in [components.percentEncodedQuery, components.percentEncodedFragment] {
            for (name, value) in try Self.formDecode(part ?? "", url: shownURL) {
                if parameters.updateValue(value, forKey: name) != nil {
                    throw WebAuthError(
                        .invalidResponse,
                        "The callback carries \(Self.named(name)) more than once; it was not accepted.",
                        url: shownURL)
                }
            }
        }
        self.callbackURL = callbackURL
        self.parameters = parameters

        if throwingOAuthError, let error = parameters["error"] {
            throw WebAuthError.server(
                .init(error: error, errorDescription: parameters["error_description"],
                      errorURI: parameters["error_uri"]),
                url: shownURL)
        }
        if let expectedState, parameters["state"] != expectedState {
            throw WebAuthError(
                .stateMismatch,
                parameters["state"] == nil
                    ? "The callback has no state parameter; it may not answer this app's request."
                    : "The callback's state does not match the request's; it was not accepted.",
                url: shownURL)
        }
    }

    /// Reads a callback URL as the user agent reported it, text as is. Unlike `URL(string:)`,
    /// which silently re-encodes a malformed `%` sequence, this refuses it with `.invalidResponse`.
    public init(callbackString: String, expectedState: String? = nil) throws(WebAuthError) {
        try self.init(callbackString: callbackString, expectedState: expectedState, throwingOAuthError: true)
    }

    /// As ``init(callbackString:expectedState:)``, an OAuth `error` thrown only with `throwingOAuthError`.
    package init(callbackString: String, expectedState: String?, throwingOAuthError: Bool) throws(WebAuthError) {
        guard let callback = CallbackURL(callbackString) else {
            throw WebAuthError(
                .invalidResponse,
                "The callback URL is malformed (invalid characters or percent-encoding); it was not accepted.",
                url: URL(string: String(callbackString.prefix { $0 != "?" && $0 != "#" })).flatMap(Self.withoutQueryAndFragment))
        }
        try self.init(callback: callback, expectedState: expectedState, throwingOAuthError: throwingOAuthError)
    }

    /// The authorization code, or `.invalidResponse` when the callback has none.
    public func requireCode() throws(WebAuthError) -> String {
        guard let code, !code.isEmpty else {
            throw WebAuthError(
                .invalidResponse, "The callback carries no authorization code.",
                url: Self.withoutQueryAndFragment(callbackURL))
        }
        return code
    }

    /// Splits `application/x-www-form-urlencoded` text (`+` is a space). `url` is only put in
    /// the error, so it must already be free of the query and fragment.
    static func formDecode(_ text: String, url: URL?) throws(WebAuthError) -> [(String, String)] {
        var pairs: [(String, String)] = []
        for field in text.split(separator: "&", omittingEmptySubsequences: true) {
            let nameAndValue = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = formUnescape(nameAndValue[0]) else {
                throw WebAuthError(
                    .invalidResponse,
                    "The callback has a parameter name with malformed percent-encoding; it was not accepted.",
                    url: url)
            }
            guard let value = nameAndValue.count > 1 ? formUnescape(nameAndValue[1]) : "" else {
                throw WebAuthError(
                    .invalidResponse,
                    "The callback's value of \(named(name)) has malformed percent-encoding; it was not accepted.",
                    url: url)
            }
            if !name.isEmpty { pairs.append((name, value)) }
        }
        return pairs
    }

    /// One form-encoded name or value: `+` is a space, `%XX` a byte; `nil` when a `%` is not
    /// followed by two hex digits or the bytes are not UTF-8 (what `removingPercentEncoding`
    /// answers). Written out because Foundation's `replacingOccurrences` and
    /// `removingPercentEncoding` on Linux go through `NSString`, whose code a sign-in otherwise
    /// never loads (the benchmark's memory goal counts it).
    static func formUnescape(_ raw: Substring) -> String? {
        func hexDigit(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.utf8.count)
        var input = raw.utf8.makeIterator()
        while let byte = input.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = input.next().flatMap(hexDigit), let low = input.next().flatMap(hexDigit) else { return nil }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The parameters of OAuth 2.0 and OpenID Connect responses, named in error messages.
    /// Any other name is not quoted: it comes from the page and may carry anything.
    static let knownParameters: Set<String> = [
        "code", "state", "error", "error_description", "error_uri", "iss", "session_state",
        "access_token", "token_type", "expires_in", "scope", "id_token", "refresh_token",
    ]

    /// "the parameter `code`" for a parameter OAuth defines, "a parameter" for any other.
    static func named(_ name: String) -> String {
        knownParameters.contains(name) ? "the parameter `\(name)`" : "a parameter"
    }

    /// `url` without user info, query and fragment: what an error may show of a callback.
    static func withoutQueryAndFragment(_ url: URL) -> URL? {
        URLComponents(url: url, resolvingAgainstBaseURL: true).flatMap(withoutQueryAndFragment)
    }

    /// What an error may show of a callback already split into `components`.
    static func withoutQueryAndFragment(_ parsed: URLComponents) -> URL? {
        var components = parsed
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        components.percentEncodedQuery = nil
        components.percentEncodedFragment = nil
        return components.url
    }
}
