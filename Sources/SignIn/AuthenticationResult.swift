public import Foundation

/// The tokens a sign-in or a silent renewal produced (MSAL's `MSALResult`).
public struct AuthenticationResult: Sendable {
    /// The bearer token for the APIs the scopes name.
    public let accessToken: String
    /// When ``accessToken`` expires.
    public let expiresOn: Date
    /// The scopes granted (the server's `scope`, or those requested when it says nothing).
    public let scopes: [String]
    /// The ID token as received (a JWS).
    public let idToken: String
    /// Its claims, verified: signature, issuer, audience, expiry, nonce.
    public let idTokenClaims: IDTokenClaims
    /// The refresh token, when the server gave one.
    public let refreshToken: String?
    /// Who signed in.
    public let account: Account
}
