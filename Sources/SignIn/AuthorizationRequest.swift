import Foundation
import WebviewHost

/// One authorization code request (RFC 6749 4.1.1, RFC 7636, OpenID Connect Core 3.1.2.1):
/// the values to send and to check on return.
struct AuthorizationRequest: Sendable {
    let clientID: String
    /// The redirect URI the provider's prepare phase returned (it may carry a loopback port).
    let redirectURI: URL
    /// Space-separated in the request; always holds `openid`.
    let scopes: [String]
    let state: String
    let nonce: String
    let pkce: PKCE
    let prompt: Prompt?
    let loginHint: String?
    let extraParameters: [String: String]
    /// Whether to ask for `client_info` (`client_info=1`, Microsoft Entra ID only).
    let clientInfo: Bool

    /// Names this request sets itself; extra parameters may not repeat them.
    static let reservedParameterNames: Set<String> = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "nonce",
        "code_challenge", "code_challenge_method", "prompt", "login_hint", "client_info",
    ]

    init(
        clientID: String, redirectURI: URL, scopes: [String], prompt: Prompt? = nil, loginHint: String? = nil,
        extraParameters: [String: String] = [:], clientInfo: Bool = false, state: String = RandomValue.make(), nonce: String = RandomValue.make(),
        pkce: PKCE = PKCE()
    ) throws(WebAuthError) {
        if let reserved = extraParameters.keys.first(where: { Self.reservedParameterNames.contains($0) }) {
            throw WebAuthError(
                .invalidParameters,
                "The extra query parameter \"\(reserved)\" is set by the library itself; use the matching InteractiveTokenParameters property instead.")
        }
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = ScopeSet.normalized(["openid"] + scopes)
        self.state = state
        self.nonce = nonce
        self.pkce = pkce
        self.prompt = prompt
        self.loginHint = loginHint
        self.extraParameters = extraParameters
        self.clientInfo = clientInfo
    }

    /// The query parameters, in a fixed order (extra ones sorted by name).
    var parameters: [(String, String)] {
        var items: [(String, String)] = [
            ("response_type", "code"),
            ("client_id", clientID),
            ("redirect_uri", redirectURI.absoluteString),
            ("scope", scopes.joined(separator: " ")),
            ("state", state),
            ("nonce", nonce),
            ("code_challenge", pkce.challenge),
            ("code_challenge_method", pkce.method),
        ]
        if let prompt { items.append(("prompt", prompt.rawValue)) }
        if let loginHint, !loginHint.isEmpty { items.append(("login_hint", loginHint)) }
        if clientInfo { items.append(("client_info", "1")) }
        items += extraParameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return items
    }

    /// The URL to show the person: `endpoint` with the parameters added to its query.
    func url(endpoint: URL) throws(WebAuthError) -> URL {
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: true) else {
            throw WebAuthError(.invalidResponse, "The authorization endpoint \(endpoint) is not a valid URL.", url: endpoint)
        }
        let query = FormEncoding.encode(parameters)
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + query
        } else {
            components.percentEncodedQuery = query
        }
        guard let url = components.url else {
            throw WebAuthError(.invalidResponse, "The authorization URL could not be built from \(endpoint).", url: endpoint)
        }
        return url
    }
}
