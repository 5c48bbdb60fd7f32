// libFuzzer target: WebAuthResponse(callbackString:expectedState:) on arbitrary text, as a
// user agent could report it for a fixed redirect URI and state.
// Built by Tests/Fuzz/run.sh with Sources/WebviewHost/WebAuthResponse.swift and WebAuthError.swift.
import Foundation

let expectedState = "s-9f2Kq0"
let redirect = "http://127.0.0.1:8080/callback"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCallback(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // Half the inputs are taken as the whole callback, the others as what follows the
    // redirect URI (`?code=...`), so the fuzzer spends its time in the query and fragment.
    guard let first = bytes.first else { return 0 }
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    let callback = first & 1 == 0 ? text : redirect + text
    let state: String? = first & 2 == 0 ? expectedState : nil

    do {
        let response = try WebAuthResponse(callbackString: callback, expectedState: state)
        if let state, response.state != state { fatalError("accepted a callback whose state is not the expected one") }
        if response.parameters["error"] != nil { fatalError("accepted a callback carrying an OAuth error") }
        _ = try? response.requireCode()
        // From the URL too (the form providers report): it must not trap either.
        _ = try? WebAuthResponse(callbackURL: response.callbackURL, expectedState: state)
    } catch {
        checkNoSecret(in: error, callback: callback)
    }
    if let url = URL(string: callback) {
        do { _ = try WebAuthResponse(callbackURL: url, expectedState: state) } catch { checkNoSecret(in: error, callback: callback) }
    }
    return 0
}

/// The error shows no query, fragment or user info, and its message quotes no parameter value
/// (values with a digit and six characters or more: our messages hold no such text), except
/// the server's own `error` and `error_description`, which are shown on purpose.
func checkNoSecret(in error: WebAuthError, callback: String) {
    if let url = error.url {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        if url.query != nil || url.fragment != nil || components?.percentEncodedUser != nil {
            fatalError("the error's url keeps the query, fragment or user info: \(url)")
        }
    }
    // Compared on one line, as the server's text is shown (control characters as spaces).
    let shown = oneLine(error.message + error.description)
    let serverText = oneLine([error.serverError?.error, error.serverError?.errorDescription].compactMap { $0 }.joined(separator: "\u{0}"))
    guard let start = callback.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return }
    for field in callback[start...].split(whereSeparator: { "?#&".contains($0) }) {
        let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !["error", "error_description"].contains(parts[0]) else { continue }
        let values = [String(parts[1]), String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""]
        for value in values.map(oneLine) where value.count >= 6 && value.contains(where: \.isNumber) {
            if contains(shown, value), !contains(serverText, value) {
                fatalError("an error quotes the value of \(parts[0]): \(shown)")
            }
        }
    }
}

/// Whether `text` holds `part`, byte for byte (`String.contains` compares by Unicode rules,
/// under which some characters, NUL among them, match nothing).
func contains(_ text: String, _ part: String) -> Bool {
    let text = Array(text.utf8), part = Array(part.utf8)
    guard !part.isEmpty, part.count <= text.count else { return part.isEmpty }
    return (0...(text.count - part.count)).contains { text[$0..<($0 + part.count)].elementsEqual(part) }
}

/// `text` with every run of whitespace, control, format or separator characters as one space.
func oneLine(_ text: String) -> String {
    var line = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        let category = scalar.properties.generalCategory
        if scalar.properties.isWhitespace || [.control, .format, .lineSeparator, .paragraphSeparator].contains(category) {
            if line.last != " " { line.append(" ") }
        } else {
            line.append(scalar)
        }
    }
    return String(line)
}
