import Foundation

/// The part of an OpenID provider's discovery document this library uses
/// (OpenID Connect Discovery 1.0 section 3).
struct OpenIDProviderMetadata: Decodable, Sendable {
    var issuer: String
    var authorizationEndpoint: URL
    var tokenEndpoint: URL
    var jwksURI: URL
    /// Microsoft Entra ID's `cloud_instance_name` (`microsoftonline.com`...): only its discovery documents have it.
    var cloudInstanceName: String?
    /// `end_session_endpoint` (OpenID Connect RP-Initiated Logout 1.0), when the provider has one.
    var endSessionEndpoint: URL?
    /// `device_authorization_endpoint` (RFC 8628), when the provider has one.
    var deviceAuthorizationEndpoint: URL?
    /// `userinfo_endpoint` (OpenID Connect Core 5.3): who an access token is for, read when a
    /// grant returned no ID token.
    var userinfoEndpoint: URL?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case cloudInstanceName = "cloud_instance_name"
        case endSessionEndpoint = "end_session_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
    }
}
