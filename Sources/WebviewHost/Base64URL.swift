package import Foundation

/// base64url without padding (RFC 4648 section 5), as JOSE and PKCE use it.
package enum Base64URL {
    package static func encode(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes, or `nil` for text that is not unpadded base64url.
    package static func decode(_ text: some StringProtocol) -> Data? {
        guard !text.contains(where: { $0 == "=" || $0 == "+" || $0 == "/" }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch base64.count % 4 {
        case 0: break
        case 2: base64 += "=="
        case 3: base64 += "="
        default: return nil
        }
        return Data(base64Encoded: base64)
    }
}
