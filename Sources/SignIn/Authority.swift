import Foundation
import WebviewHost

/// The identity provider behind an issuer URL: its discovery document and signing keys, both
/// fetched once and cached, and its token endpoint.
actor Authority {
    let issuerURL: URL
    let connection: ProviderConnection
    private var metadata: OpenIDProviderMetadata?
    private var keySet: JSONWebKeySet?
    private var keySetFetchedAt: Date?

    init(issuerURL: URL, connection: ProviderConnection) {
        self.issuerURL = issuerURL
        self.connection = connection
    }

    /// The discovery document of `<issuer>/.well-known/openid-configuration`, checked and cached.
    ///
    /// - Throws: `network`, or `invalidResponse` for a document that is not JSON, names another
    ///   issuer, or points to endpoints that are neither https nor loopback.
    func providerMetadata() async throws(WebAuthError) -> OpenIDProviderMetadata {
        if let metadata { return metadata }
        var base = issuerURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + "/.well-known/openid-configuration") else {
            throw WebAuthError(.invalidParameters, "The authority \(issuerURL) is not a valid URL.")
        }
        let (status, body) = try await connection.get(url)
        guard status == 200 else {
            throw WebAuthError(.invalidResponse, "The provider's OpenID configuration at \(url) answered HTTP \(status); check the authority URL.", url: url)
        }
        let document: OpenIDProviderMetadata
        do {
            document = try JSONDecoder().decode(OpenIDProviderMetadata.self, from: body)
        } catch {
            throw WebAuthError(
                .invalidResponse, "The provider's OpenID configuration at \(url) lacks issuer, authorization_endpoint, token_endpoint or jwks_uri.",
                url: url, underlyingError: error as? DecodingError)
        }
        try Self.check(document, issuer: base, from: url)
        metadata = document
        return document
    }

    /// Refuses a discovery document read from `url` that names another issuer than `issuer`
    /// (Discovery 4.3) or an endpoint that is neither https nor http on a loopback address.
    static func check(_ document: OpenIDProviderMetadata, issuer: String, from url: URL) throws(WebAuthError) {
        guard sameIssuer(document.issuer, issuer) else {
            throw WebAuthError(.invalidResponse, "The provider at \(url) says its issuer is \"\(document.issuer)\", not \"\(issuer)\"; check the authority URL.", url: url)
        }
        let optional = [document.endSessionEndpoint, document.deviceAuthorizationEndpoint, document.userinfoEndpoint].compactMap { $0 }
        for endpoint in [document.authorizationEndpoint, document.tokenEndpoint, document.jwksURI] + optional where !endpoint.isHTTPSOrLoopback {
            throw WebAuthError(.invalidResponse, "The provider's endpoint \(endpoint) is neither https nor http on a loopback address; it was not used.", url: endpoint)
        }
    }

    /// The token endpoint, when the discovery document has been read (never fetches it).
    var discoveredTokenEndpoint: URL? { metadata?.tokenEndpoint }

    /// Whether the provider is Microsoft Entra ID (a known host of its clouds, or a discovery
    /// document with its `cloud_instance_name`), which answers `client_info=1` with the
    /// `client_info` MSAL keys accounts by. Other providers are not sent the parameter.
    func sendsClientInfo() async throws(WebAuthError) -> Bool {
        if MicrosoftEntraHosts.contains((issuerURL.host ?? "").lowercased()) { return true }
        return try await providerMetadata().cloudInstanceName != nil
    }

    /// The issuer's signing keys, cached; `refresh` fetches them again (keys rotate), at most
    /// once a minute.
    func signingKeys(refresh: Bool = false) async throws(WebAuthError) -> (keys: JSONWebKeySet, fresh: Bool) {
        if let keySet, !refresh || (keySetFetchedAt.map { Date().timeIntervalSince($0) < 60 } ?? false) {
            return (keySet, false)
        }
        let url = try await providerMetadata().jwksURI
        let (status, body) = try await connection.get(url)
        guard status == 200 else {
            throw WebAuthError(.invalidResponse, "The provider's key set at \(url) answered HTTP \(status).", url: url)
        }
        let keys = try JSONWebKeySet(json: body)
        keySet = keys
        keySetFetchedAt = Date()
        return (keys, true)
    }

    /// What a grant at the token endpoint (`authorization_code` or `refresh_token`) returned.
    enum GrantOutcome: Sendable {
        case tokens(TokenResponse)
        /// The server refused the grant (HTTP 4xx), with its OAuth error when it sent one.
        case refused(status: Int, OAuthErrorResponse?)
    }

    /// Posts `form` to the token endpoint. A 200 must carry a token response; anything else
    /// unexpected throws `invalidResponse`, a 5xx throws `server`.
    func requestTokens(_ form: [(String, String)]) async throws(WebAuthError) -> GrantOutcome {
        let url = try await providerMetadata().tokenEndpoint
        var form = form
        // As MSAL does in every token request to Microsoft Entra ID.
        if try await sendsClientInfo(), !form.contains(where: { $0.0 == "client_info" }) { form.append(("client_info", "1")) }
        let (status, body) = try await connection.postForm(url, form)
        let sent = form.filter { ["code", "refresh_token", "code_verifier"].contains($0.0) }.map(\.1)
        return try Self.grantOutcome(status: status, body: body, from: url, sent: sent)
    }

    /// Reads the token endpoint's answer. No error it throws quotes the body (which may hold
    /// tokens): a decoding failure keeps only what was wrong, without the values (see
    /// ``withoutValues(_:)``). A server that echoes a secret it was `sent` (the code, the
    /// refresh token, the PKCE verifier) in its OAuth error has it replaced by `[redacted]`,
    /// in the message and in the ``OAuthErrorResponse`` alike, since both reach logs.
    static func grantOutcome(status: Int, body: Data, from url: URL, sent: [String] = []) throws(WebAuthError) -> GrantOutcome {
        let oauthError = (try? JSONDecoder().decode(OAuthErrorResponse.self, from: body)).map { $0.redacting(sent) }
        switch status {
        case 200:
            do {
                let tokens = try JSONDecoder().decode(TokenResponse.self, from: body)
                guard tokens.tokenType.lowercased() == "bearer" else {
                    // The type is named only when it looks like one (`DPoP`, `mac`: at most ten
                    // letters, digits, `-`, `_`); a broken server may put anything there, a token too.
                    let looksLikeAType = tokens.tokenType.count <= 10
                        && tokens.tokenType.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
                    let type = looksLikeAType ? "a \"\(tokens.tokenType)\" token" : "a token of another type"
                    throw WebAuthError(.invalidResponse, "The token endpoint returned \(type); only bearer tokens are supported.", url: url)
                }
                return .tokens(tokens)
            } catch let error as WebAuthError {
                throw error
            } catch {
                throw WebAuthError(
                    .invalidResponse, "The token endpoint's answer is not JSON with a string access_token and token_type.",
                    url: url, underlyingError: (error as? DecodingError).map(withoutValues))
            }
        case 400..<500:
            return .refused(status: status, oauthError)
        default:
            if let oauthError {
                throw WebAuthError.server(.init(error: oauthError.error, errorDescription: oauthError.errorDescription, errorURI: oauthError.errorURI), url: url)
            }
            throw WebAuthError(.server, "The token endpoint answered HTTP \(status); try again later.", url: url)
        }
    }

    /// `error` with its kind and coding path but none of the decoder's own text, which can quote
    /// the JSON it choked on (a token, for a token response).
    static func withoutValues(_ error: DecodingError) -> DecodingError {
        switch error {
        case .typeMismatch(let type, let context):
            return .typeMismatch(type, .init(codingPath: context.codingPath, debugDescription: "The value has another type."))
        case .valueNotFound(let type, let context):
            return .valueNotFound(type, .init(codingPath: context.codingPath, debugDescription: "The value is null."))
        case .keyNotFound(let key, let context):
            return .keyNotFound(key, .init(codingPath: context.codingPath, debugDescription: "The key is missing."))
        case .dataCorrupted(let context):
            return .dataCorrupted(.init(codingPath: context.codingPath, debugDescription: "The data is not valid JSON or a value is out of range."))
        @unknown default:
            return .dataCorrupted(.init(codingPath: [], debugDescription: "The answer could not be decoded."))
        }
    }

    private static func sameIssuer(_ a: String, _ b: String) -> Bool {
        func trimmed(_ s: String) -> String { s.hasSuffix("/") ? String(s.dropLast()) : s }
        return trimmed(a) == trimmed(b)
    }
}
