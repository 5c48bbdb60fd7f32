public import Foundation

/// The claims of an ID token whose signature and claims were verified.
public struct IDTokenClaims: Sendable, Hashable {
    /// `iss`: the provider that issued the token.
    public let issuer: String
    /// `sub`: the provider's identifier for the person.
    public let subject: String
    /// `aud`: the clients the token is for.
    public let audience: [String]
    /// `azp`: the client the token was issued to, when present.
    public let authorizedParty: String?
    /// `exp`.
    public let expiresAt: Date
    /// `iat`.
    public let issuedAt: Date
    /// `nonce`, when present.
    public let nonce: String?
    /// `name`, when the provider gives it.
    public let name: String?
    /// `preferred_username`, when the provider gives it.
    public let preferredUsername: String?
    /// `email`, when the provider gives it.
    public let email: String?
    /// The whole claims object as JSON, for claims not named here.
    public let json: Data

    /// Reads the claims every ID token must carry (OpenID Connect Core 2).
    package init(json: Data) throws(IDTokenValidationError) {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw IDTokenValidationError(.malformed, "The ID token's claims are not a JSON object.")
        }
        func string(_ name: String) throws(IDTokenValidationError) -> String {
            guard let value = object[name] as? String, !value.isEmpty else {
                throw IDTokenValidationError(.missingClaim, "The ID token has no \"\(name)\" string claim.")
            }
            return value
        }
        func optionalString(_ name: String) throws(IDTokenValidationError) -> String? {
            guard let value = object[name] else { return nil }
            guard let text = value as? String else {
                throw IDTokenValidationError(.missingClaim, "The ID token's \"\(name)\" claim is not a string.")
            }
            return text
        }
        // JSONDecoder, not NSNumber, for times: a JSON `true` must not pass for the number 1.
        struct TimeClaims: Decodable {
            var exp: Double?
            var iat: Double?
        }
        let times = try? JSONDecoder().decode(TimeClaims.self, from: json)
        func date(_ name: String, _ value: Double??) throws(IDTokenValidationError) -> Date {
            guard let value = value ?? nil, value.isFinite else {
                throw IDTokenValidationError(.missingClaim, "The ID token has no numeric \"\(name)\" claim.")
            }
            return Date(timeIntervalSince1970: value)
        }
        issuer = try string("iss")
        subject = try string("sub")
        switch object["aud"] {
        case let single as String where !single.isEmpty:
            audience = [single]
        case let many as [Any] where !many.isEmpty && many.allSatisfy({ $0 is String }):
            audience = many.compactMap { $0 as? String }
        default:
            throw IDTokenValidationError(.missingClaim, "The ID token has no \"aud\" claim (a string or an array of strings).")
        }
        authorizedParty = try optionalString("azp")
        expiresAt = try date("exp", times.map(\.exp))
        issuedAt = try date("iat", times.map(\.iat))
        nonce = try optionalString("nonce")
        name = try optionalString("name")
        preferredUsername = try optionalString("preferred_username")
        email = try optionalString("email")
        self.json = json
    }

    /// The claims of a person whose grant returned no ID token: the userinfo endpoint's answer
    /// (`sub` required, OpenID Connect Core 5.3.2), with `iss`, `aud`, `iat` and `exp` set here
    /// (the provider, this client, the access token's times), whatever the answer said of them.
    package init(userinfo: Data, issuer: String, clientID: String, issuedAt: Date, expiresAt: Date) throws(IDTokenValidationError) {
        guard var object = try? JSONSerialization.jsonObject(with: userinfo) as? [String: Any] else {
            throw IDTokenValidationError(.malformed, "The userinfo endpoint's answer is not a JSON object.")
        }
        guard let subject = object["sub"] as? String, !subject.isEmpty else {
            throw IDTokenValidationError(.missingClaim, "The userinfo endpoint's answer has no \"sub\" string claim.")
        }
        for name in ["azp", "nonce"] { object[name] = nil }
        object["iss"] = issuer
        object["aud"] = clientID
        object["iat"] = issuedAt.timeIntervalSince1970.rounded(.down)
        object["exp"] = expiresAt.timeIntervalSince1970.rounded(.down)
        guard let json = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            throw IDTokenValidationError(.malformed, "The userinfo endpoint's answer could not be kept.")
        }
        try self.init(json: json)
    }
}
