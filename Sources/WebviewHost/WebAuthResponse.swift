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
    /// - Throws: `.server` when the callback carries an OAuth `error`; `.stateMismatch` when
    ///   `expectedState` is given and differs (or is missing); `.invalidResponse` for malformed
    ///   percent-encoding or a parameter given twice (RFC 6749 3.1).
    public init(callbackURL: URL, expectedState: String? = nil) throws(WebAuthError) {
        guard let components = URLComponents(url: callbackURL, resolvingAgainstBaseURL: true) else {
            throw WebAuthError(.invalidResponse, "The callback URL could not be parsed.", url: callbackURL)
        }
        var parameters: [String: String] = [:]
        for part in [components.percentEncodedQuery, components.percentEncodedFragment] {
            for (name, value) in try Self.formDecode(part ?? "", url: callbackURL) {
                if parameters.updateValue(value, forKey: name) != nil {
                    throw WebAuthError(
                        .invalidResponse,
                        "The callback carries the parameter \"\(name)\" more than once; it was not accepted.",
                        url: callbackURL)
                }
            }
        }
        self.callbackURL = callbackURL
        self.parameters = parameters

        if let error = parameters["error"] {
            throw WebAuthError.server(
                .init(error: error, errorDescription: parameters["error_description"],
                      errorURI: parameters["error_uri"]),
                url: callbackURL)
        }
        if let expectedState, parameters["state"] != expectedState {
            throw WebAuthError(
                .stateMismatch,
                parameters["state"] == nil
                    ? "The callback has no state parameter; it may not answer this app's request."
                    : "The callback's state does not match the request's; it was not accepted.",
                url: callbackURL)
        }
    }

    /// Reads a callback URL as the user agent reported it, text as is. Unlike `URL(string:)`,
    /// which silently re-encodes a malformed `%` sequence, this refuses it with `.invalidResponse`.
    public init(callbackString: String, expectedState: String? = nil) throws(WebAuthError) {
        guard let url = URL(string: callbackString, encodingInvalidCharacters: false) else {
            throw WebAuthError(
                .invalidResponse,
                "The callback URL is malformed (invalid characters or percent-encoding); it was not accepted.",
                url: URL(string: callbackString))
        }
        try self.init(callbackURL: url, expectedState: expectedState)
    }

    /// The authorization code, or `.invalidResponse` when the callback has none.
    public func requireCode() throws(WebAuthError) -> String {
        guard let code, !code.isEmpty else {
            throw WebAuthError(
                .invalidResponse, "The callback carries no authorization code.", url: callbackURL)
        }
        return code
    }

    /// Splits `application/x-www-form-urlencoded` text (`+` is a space).
    static func formDecode(_ text: String, url: URL) throws(WebAuthError) -> [(String, String)] {
        var pairs: [(String, String)] = []
        for field in text.split(separator: "&", omittingEmptySubsequences: true) {
            let nameAndValue = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ raw: Substring) throws(WebAuthError) -> String {
                guard let decoded = raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
                else {
                    throw WebAuthError(
                        .invalidResponse,
                        "The callback has malformed percent-encoding in \"\(raw)\"; it was not accepted.",
                        url: url)
                }
                return decoded
            }
            let name = try decode(nameAndValue[0])
            let value = nameAndValue.count > 1 ? try decode(nameAndValue[1]) : ""
            if !name.isEmpty { pairs.append((name, value)) }
        }
        return pairs
    }
}
