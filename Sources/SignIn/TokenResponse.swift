import Foundation
import WebviewHost

/// A successful token endpoint answer (RFC 6749 section 5.1, OpenID Connect Core 3.1.3.3).
struct TokenResponse: Decodable, Sendable {
    var accessToken: String
    var tokenType: String
    var expiresIn: Double?
    var refreshToken: String?
    var idToken: String?
    var scope: String?
    /// Microsoft Entra ID's `client_info` (see ``ClientInfo``), sent when the request asked for it.
    var clientInfo: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case scope
        case clientInfo = "client_info"
    }
}

/// An OAuth error body (RFC 6749 section 5.2).
struct OAuthErrorResponse: Decodable, Sendable {
    var error: String
    var errorDescription: String?
    var errorURI: String?

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case errorURI = "error_uri"
    }
}

extension OAuthErrorResponse {
    /// This error with every occurrence of each of `secrets` (those of four characters or more)
    /// replaced by `[redacted]`.
    func redacting(_ secrets: [String]) -> OAuthErrorResponse {
        func redacted(_ text: String) -> String {
            secrets.filter { $0.count >= 4 }.reduce(text) { $0.replacingOccurrences(of: $1, with: "[redacted]") }
        }
        return OAuthErrorResponse(error: redacted(error), errorDescription: errorDescription.map(redacted), errorURI: errorURI.map(redacted))
    }
}

extension OAuthErrorResponse {
    /// The error as ``WebviewHost/WebAuthError/ServerError``, the form every thrown error carries.
    var serverError: WebAuthError.ServerError {
        WebAuthError.ServerError(error: error, errorDescription: errorDescription, errorURI: errorURI)
    }
}
