// libFuzzer target: SignIn's ID token parsing (JWS compact split, base64url, header JSON) and
// claims reading. Signature checks need swift-crypto and are not fuzzed here. Built by
// Tests/Fuzz/run.sh with Sources/SignIn/IDToken.swift and Sources/TokenCache/IDTokenClaims.swift and
// IDTokenValidationError.swift, over Sources/WebviewHost/Base64URL.swift built as a `WebviewHost` module.
import Foundation
import WebviewHost

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIDToken(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))

    // base64url round trip on the raw bytes.
    let encoded = Base64URL.encode(bytes)
    guard Base64URL.decode(encoded) == bytes else { fatalError("base64url does not round-trip") }
    if encoded.contains(where: { $0 == "=" || $0 == "+" || $0 == "/" }) { fatalError("base64url output is not URL-safe") }

    // The bytes as a compact JWS.
    let raw = String(decoding: bytes, as: UTF8.self)
    do {
        let token = try IDToken(raw)
        let parts = raw.split(separator: ".", omittingEmptySubsequences: false)
        if token.signingInput != Data("\(parts[0]).\(parts[1])".utf8) { fatalError("signing input is not header.payload") }
        readClaims(token.payload, raw: raw)
    } catch {
        checkQuotesNoToken(error, raw: raw)
    }
    // The bytes as a claims object.
    readClaims(bytes, raw: raw)
    return 0
}

func readClaims(_ json: Data, raw: String) {
    do {
        let claims = try IDTokenClaims(json: json)
        if claims.issuer.isEmpty || claims.subject.isEmpty || claims.audience.isEmpty || claims.audience.contains("") && claims.audience.count == 1 {
            fatalError("claims accepted without iss, sub or aud")
        }
        if !claims.expiresAt.timeIntervalSince1970.isFinite || !claims.issuedAt.timeIntervalSince1970.isFinite {
            fatalError("a time claim is not finite")
        }
    } catch {
        checkQuotesNoToken(error, raw: raw)
    }
}

/// An error never quotes the signature part (or the whole token) it was given.
func checkQuotesNoToken(_ error: IDTokenValidationError, raw: String) {
    if error.detail.isEmpty { fatalError("an error without a detail") }
    let parts = raw.split(separator: ".", omittingEmptySubsequences: false)
    if parts.count == 3, parts[2].utf8.count >= 8, contains(error.detail, parts[2]) { fatalError("an error quotes the signature") }
    if raw.utf8.count >= 16, contains(error.detail, raw) { fatalError("an error quotes the token") }
}

/// Whether `text` holds `part`, byte for byte (`String.contains` compares by Unicode rules,
/// under which some characters, NUL among them, match nothing).
func contains(_ text: String, _ part: some StringProtocol) -> Bool {
    let text = Array(text.utf8), part = Array(part.utf8)
    guard !part.isEmpty, part.count <= text.count else { return part.isEmpty }
    return (0...(text.count - part.count)).contains { text[$0..<($0 + part.count)].elementsEqual(part) }
}
