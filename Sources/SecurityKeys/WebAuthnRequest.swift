internal import Foundation
internal import WebviewHost

/// One `navigator.credentials.create` or `.get` call as the page made it (WebAuthn's
/// `PublicKeyCredentialCreationOptionsJSON` / `RequestOptionsJSON`, byte fields base64url), checked
/// against the frame's origin and turned into the key's request; and the answer in the shape the
/// page script turns into a `PublicKeyCredential`.
public struct WebAuthnRequest: Sendable {
    public enum Operation: Sendable {
        case create(CredentialCreationRequest)
        case get(AssertionRequest)
    }

    /// A `DOMException`'s name and message for the page.
    public struct Failure: Error, Sendable, Equatable {
        public let name: String
        public let message: String
        public init(_ name: String, _ message: String) {
            self.name = name
            self.message = message
        }

        /// What browsers give the page for what the key answered: `InvalidStateError` for an
        /// excluded credential, `NotSupportedError` for no common algorithm, `NotAllowedError` for
        /// everything else (the person cancelled, no key, a wrong PIN, a key with no credential for
        /// the site), so a page learns nothing more than a browser would tell it.
        public init(securityKeyError error: SecurityKeyError) {
            switch error.code {
            case .credentialExcluded: self.init("InvalidStateError", "The authenticator already holds a credential for this account.")
            case .unsupportedAlgorithm: self.init("NotSupportedError", "The authenticator supports none of the requested algorithms.")
            default: self.init("NotAllowedError", "The operation either timed out or was not allowed.")
            }
        }
    }

    public let operation: Operation
    public let clientData: ClientData
    /// The page's `timeout`, clamped to 10 s – 10 min; `nil` when it named none.
    public let timeout: Duration?
    /// `extensions.credProps` asked (create).
    public let wantsCredentialProperties: Bool
    /// `attestation` other than `none`: the key's statement is passed on as it is.
    public let keepsAttestation: Bool

    /// `kind` is `create` or `get`; `origin` the frame's real origin (``RelyingPartyCheck``).
    public init(kind: String, options: [String: Any], origin: String) throws(Failure) {
        guard let host = RelyingPartyCheck.host(ofOrigin: origin) else { throw Failure("SecurityError", "The origin is not valid.") }
        guard let challengeText = options["challenge"] as? String, let challenge = Self.bytes(challengeText), !challenge.isEmpty else {
            throw Failure("TypeError", "The challenge is missing.")
        }
        timeout = (options["timeout"] as? Double).map { Duration.milliseconds(Int64(min(max($0, 10_000), 600_000))) }
        let extensions = options["extensions"] as? [String: Any] ?? [:]
        wantsCredentialProperties = extensions["credProps"] as? Bool == true
        let verification = UserVerification(rawValue: (options["userVerification"] as? String) ?? "") ?? .preferred
        switch kind {
        case "create":
            guard let rp = options["rp"] as? [String: Any], let user = options["user"] as? [String: Any] else {
                throw Failure("TypeError", "rp and user are required.")
            }
            let rpID = (rp["id"] as? String) ?? host
            guard RelyingPartyCheck.allows(relyingPartyID: rpID, forHost: host) else {
                throw Failure("SecurityError", "The relying party ID is not a registrable domain suffix of, nor equal to the current domain.")
            }
            guard let userIDText = user["id"] as? String, let userID = Self.bytes(userIDText), (1...64).contains(userID.count) else {
                throw Failure("TypeError", "user.id must be between 1 and 64 bytes.")
            }
            let selection = options["authenticatorSelection"] as? [String: Any] ?? [:]
            if selection["authenticatorAttachment"] as? String == "platform" {
                throw Failure("NotAllowedError", "This view has no platform authenticator.")
            }
            let parameters = (options["pubKeyCredParams"] as? [[String: Any]]) ?? []
            var algorithms = parameters.filter { $0["type"] as? String == "public-key" }.compactMap { ($0["alg"] as? NSNumber)?.int32Value }
            if parameters.isEmpty { algorithms = [-7, -257] }
            let residentKey = selection["residentKey"] as? String == "required" || selection["requireResidentKey"] as? Bool == true
            let attestation = options["attestation"] as? String ?? "none"
            keepsAttestation = attestation != "none"
            clientData = ClientData(kind: .create, challenge: challenge, origin: origin)
            operation = .create(CredentialCreationRequest(
                clientDataHash: clientData.hash,
                relyingParty: RelyingParty(id: rpID, name: rp["name"] as? String ?? rpID),
                user: UserEntity(id: userID, name: user["name"] as? String, displayName: user["displayName"] as? String),
                algorithms: algorithms,
                excludeCredentials: Self.credentialIDs(options["excludeCredentials"]),
                residentKey: residentKey,
                userVerification: UserVerification(rawValue: (selection["userVerification"] as? String) ?? "") ?? .preferred))
        case "get":
            let rpID = (options["rpId"] as? String) ?? host
            guard RelyingPartyCheck.allows(relyingPartyID: rpID, forHost: host) else {
                throw Failure("SecurityError", "The relying party ID is not a registrable domain suffix of, nor equal to the current domain.")
            }
            keepsAttestation = false
            clientData = ClientData(kind: .get, challenge: challenge, origin: origin)
            operation = .get(AssertionRequest(
                relyingPartyID: rpID, clientDataHash: clientData.hash,
                allowCredentials: Self.credentialIDs(options["allowCredentials"]), userVerification: verification))
        default:
            throw Failure("NotSupportedError", "Only create and get are supported.")
        }
    }

    /// The page's `PublicKeyCredential` for a made credential (`toJSON()`'s shape).
    public func credential(_ made: MadeCredential) -> [String: Any] {
        let attested = keepsAttestation ? made : MadeCredential(
            credentialID: made.credentialID, authenticatorData: made.authenticatorData, format: "none", attestationStatement: [0xA0],
            algorithm: made.algorithm, residentKey: made.residentKey, publicKey: made.publicKey)
        let response: [String: Any] = [
            "clientDataJSON": Base64URL.encode(clientData.json),
            "attestationObject": Base64URL.encode(attested.attestationObject),
            "authenticatorData": Base64URL.encode(made.authenticatorData),
            "publicKey": made.publicKeyDER.map(Base64URL.encode) ?? NSNull(),
            "publicKeyAlgorithm": Int(made.algorithm),
            "transports": ["usb"],
        ]
        let extensions: [String: Any] = wantsCredentialProperties ? ["credProps": ["rk": made.residentKey]] : [:]
        return Self.credential(id: made.credentialID, response: response, extensions: extensions)
    }

    /// The page's `PublicKeyCredential` for a signature.
    public func credential(_ signed: SignedAssertion) -> [String: Any] {
        let response: [String: Any] = [
            "clientDataJSON": Base64URL.encode(clientData.json),
            "authenticatorData": Base64URL.encode(signed.authenticatorData),
            "signature": Base64URL.encode(signed.signature),
            "userHandle": signed.userHandle.map(Base64URL.encode) ?? NSNull(),
        ]
        return Self.credential(id: signed.credentialID, response: response, extensions: [:])
    }

    private static func credential(id: [UInt8], response: [String: Any], extensions: [String: Any]) -> [String: Any] {
        [
            "id": Base64URL.encode(id), "rawId": Base64URL.encode(id), "type": "public-key", "authenticatorAttachment": "cross-platform",
            "response": response, "clientExtensionResults": extensions,
        ]
    }

    private static func credentialIDs(_ list: Any?) -> [[UInt8]] {
        ((list as? [[String: Any]]) ?? []).filter { ($0["type"] as? String ?? "public-key") == "public-key" }
            .compactMap { ($0["id"] as? String).flatMap(bytes) }
    }

    /// base64url → bytes; trailing padding is taken too (WebAuthn's JSON has none).
    static func bytes(_ text: String) -> [UInt8]? {
        Base64URL.decode(text.trimmingCharacters(in: CharacterSet(charactersIn: "="))).map(Array.init)
    }
}
