/// Why an ID token was refused. It is the `underlyingError` of the `invalidResponse`
/// ``WebviewHost/WebAuthError`` that acquiring a token then throws.
public struct IDTokenValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which check failed.
    public enum Reason: Hashable, Sendable {
        /// Not a JWS compact serialization, or its JSON or base64url is broken.
        case malformed
        /// The header's `alg` is not one this library verifies (`none` never is).
        case unsupportedAlgorithm
        /// No key of the issuer's key set matches the header's `kid` and `alg`.
        case unknownKey
        /// The signature does not verify with the issuer's key.
        case badSignature
        /// A claim the token must carry is missing or has the wrong type.
        case missingClaim
        /// `iss` is not the provider's issuer.
        case wrongIssuer
        /// `aud` does not name this client.
        case wrongAudience
        /// `azp` is present and is not this client (or is missing with several audiences).
        case wrongAuthorizedParty
        /// `exp` has passed (beyond the allowed clock skew).
        case expired
        /// `iat` is in the future (beyond the allowed clock skew).
        case issuedInFuture
        /// `nonce` is not the one sent with the request.
        case nonceMismatch
        /// A renewed ID token names another person or provider than the first one.
        case accountMismatch
    }

    public let reason: Reason
    /// What exactly was wrong, for people.
    public let detail: String

    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { detail }
}
