import Foundation

/// Checks an ID token (OpenID Connect Core 3.1.3.7): the signature against the issuer's keys,
/// then `iss`, `aud`, `azp`, `exp`, `iat` (with a small clock skew) and `nonce`.
/// A token that fails any check throws; it never yields claims.
struct IDTokenValidator: Sendable {
    /// The issuer from the provider's metadata.
    let issuer: String
    let clientID: String
    let allowedClockSkew: TimeInterval

    /// The verified claims of `rawToken`.
    ///
    /// - Parameter nonce: the `nonce` sent with the authorization request; `nil` for a token
    ///   from a refresh, which is checked against the first one instead.
    func validate(
        _ rawToken: String, keys: JSONWebKeySet, nonce: String?, now: Date
    ) throws(IDTokenValidationError) -> IDTokenClaims {
        let token = try IDToken(rawToken)
        guard JSONWebKey.supportedAlgorithms.contains(token.algorithm) else {
            throw IDTokenValidationError(
                .unsupportedAlgorithm,
                "The ID token is signed with \"\(token.algorithm)\", which is not accepted (accepted: "
                    + JSONWebKey.supportedAlgorithms.sorted().joined(separator: ", ") + ").")
        }
        let candidates = keys.candidates(algorithm: token.algorithm, keyID: token.keyID)
        guard !candidates.isEmpty else {
            throw IDTokenValidationError(
                .unknownKey,
                "The issuer's key set has no \(token.algorithm) key"
                    + (token.keyID.map { " with kid \"\($0)\"" } ?? "") + " to verify the ID token.")
        }
        var verified = false
        for key in candidates where try key.verify(signature: token.signature, signingInput: token.signingInput, algorithm: token.algorithm) {
            verified = true
            break
        }
        guard verified else {
            throw IDTokenValidationError(.badSignature, "The ID token's signature does not verify with the issuer's key.")
        }

        let claims = try IDTokenClaims(json: token.payload)
        guard claims.issuer == issuer else {
            throw IDTokenValidationError(.wrongIssuer, "The ID token was issued by \"\(claims.issuer)\", not by \"\(issuer)\".")
        }
        guard claims.audience.contains(clientID) else {
            throw IDTokenValidationError(
                .wrongAudience,
                "The ID token is for \(claims.audience.map { "\"\($0)\"" }.joined(separator: ", ")), not for this app (\"\(clientID)\").")
        }
        if let party = claims.authorizedParty, party != clientID {
            throw IDTokenValidationError(.wrongAuthorizedParty, "The ID token was issued to \"\(party)\" (azp), not to this app (\"\(clientID)\").")
        }
        if claims.audience.count > 1, claims.authorizedParty == nil {
            throw IDTokenValidationError(.wrongAuthorizedParty, "The ID token names several audiences but no authorized party (azp).")
        }
        guard now.timeIntervalSince(claims.expiresAt) < allowedClockSkew else {
            throw IDTokenValidationError(.expired, "The ID token expired at \(claims.expiresAt) (now \(now)); check the computer's clock.")
        }
        guard claims.issuedAt.timeIntervalSince(now) <= allowedClockSkew else {
            throw IDTokenValidationError(.issuedInFuture, "The ID token was issued in the future (\(claims.issuedAt), now \(now)); check the computer's clock.")
        }
        if let nonce, claims.nonce != nonce {
            throw IDTokenValidationError(
                .nonceMismatch,
                claims.nonce == nil ? "The ID token carries no nonce; it may not answer this request." : "The ID token's nonce is not the one sent; it does not answer this request.")
        }
        return claims
    }
}
