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

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case cloudInstanceName = "cloud_instance_name"
    }
}
