internal import Foundation
internal import WebviewHost
internal import Crypto

/// WebAuthn's `clientDataJSON`, built by the library from the requesting frame's real origin,
/// never from anything the page passes: the page gives only the challenge.
///
/// Serialized as the specification's limited verification algorithm expects and as browsers
/// write it: `type`, `challenge` (base64url, no padding), `origin`, `crossOrigin`, then
/// `topOrigin` for a cross-origin frame, with JSON's string escaping.
public struct ClientData: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case create = "webauthn.create"
        case get = "webauthn.get"
    }

    public let kind: Kind
    public let challenge: [UInt8]
    /// The frame's origin, serialized (`https://login.example.com`, a port only when not the default).
    public let origin: String
    /// The top-level origin when the frame is not same-origin with it.
    public let topOrigin: String?

    public init(kind: Kind, challenge: [UInt8], origin: String, topOrigin: String? = nil) {
        self.kind = kind
        self.challenge = challenge
        self.origin = origin
        self.topOrigin = topOrigin
    }

    public var json: [UInt8] {
        var text = "{\"type\":\(Self.quoted(kind.rawValue)),\"challenge\":\(Self.quoted(Base64URL.encode(challenge)))"
        text += ",\"origin\":\(Self.quoted(origin)),\"crossOrigin\":\(topOrigin == nil ? "false" : "true")"
        if let topOrigin { text += ",\"topOrigin\":\(Self.quoted(topOrigin))" }
        return Array((text + "}").utf8)
    }

    /// SHA-256 of `json`: what the key signs.
    public var hash: [UInt8] { Array(SHA256.hash(data: json)) }

    /// A JSON string as the specification's CCDToString writes it.
    static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{00}"..."\u{1F}": out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
