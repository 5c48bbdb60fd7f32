import Foundation
import Testing
import WebviewHost

/// Errors built from a callback reach logs, `didFail` notifications and crash reports: none of
/// them may carry the code, a token, the state or the raw query (issue 8).
@Suite("Callback errors carry no secret")
struct CallbackSecretTests {
    /// Stands for a code or token. Letters and digits only, so it reads the same encoded or not.
    static let marker = "Zq9SECRETxK7wpMarker"

    /// Malformed or refused callbacks carrying the marker as code, state, a token, another
    /// parameter's value or name, inside broken escapes, and in the user info.
    static let callbacks: [String] = {
        let m = marker
        let base = "http://127.0.0.1:8080/cb"
        let queries = [
            // refused state
            "?code=\(m)&state=other", "?code=\(m)", "?code=\(m)&state=\(m)",
            "#code=\(m)&state=other", "?code=\(m)#state=wrong",
            // parameter given twice
            "?code=\(m)&code=\(m)2&state=s", "?code=\(m)&state=s#code=\(m)", "?state=\(m)&state=\(m)&code=a",
            "?code=a&state=s&access_token=\(m)&access_token=\(m)", "#access_token=\(m)&id_token=\(m)&id_token=x",
            "?refresh_token=\(m)&refresh_token=\(m)&state=s", "?\(m)=1&\(m)=2&state=s", "?x=\(m)&x=\(m)&state=s",
            // broken escapes
            "?code=\(m)%zz&state=s", "?code=%zz\(m)&state=s", "?code=\(m)%&state=s", "?code=\(m)%2&state=s",
            "?code=a&state=\(m)%E9", "?code=\(m)%C3%28&state=s", "?code=a&state=s&\(m)%zz=1", "?\(m)%zz",
            "#code=\(m)%zz", "?code=a&state=s#id_token=\(m)%G0", "?access_token=%\(m)",
            // OAuth errors that also carry secrets
            "?code=\(m)&error=access_denied&state=s", "?error=invalid_request&state=\(m)",
            "#error=login_required&access_token=\(m)&id_token=\(m)", "?code=\(m)&state=s&error=a&error=b",
            // characters URLs may not hold
            "?code=\(m) x&state=s", "?code=\(m)|x&state=s", "?code=\(m)&state=s#a#b", "?code=\(m)\"&state=s",
            "?code=\(m)<script>&state=s", "?code=\(m)\\&state=s", "?code=\(m)\n&state=s", "?code=\(m)\u{0}&state=s",
            "?code=\(m)é&state=s", "?state=s&code=\(m)[]",
        ]
        var all = queries.map { base + $0 }
        all += queries.map { "com.example.app:/oauth2redirect" + $0 }
        all += [
            "http://user:\(m)@127.0.0.1:8080/cb?code=a&state=other",
            "http://\(m)@127.0.0.1:8080/cb?state=wrong",
            "http://127.0.0.1:8080/cb?code=\(m)&state=s&%",
            "?code=\(m)&state=other",
            "http://[::1/cb?code=\(m)",
            "http://127.0.0.1:99999999999/cb?code=\(m)&state=other",
        ]
        return all
    }()

    /// Every text an app could print or log about `error`.
    static func texts(of error: WebAuthError) -> [String] {
        var texts = [
            error.message, error.description, String(describing: error), String(reflecting: error),
            error.localizedDescription, error.errorDescription ?? "", "\(error)",
            error.url?.absoluteString ?? "", String(describing: error.url),
        ]
        if let underlying = error.underlyingError {
            texts += [String(describing: underlying), String(reflecting: underlying), underlying.localizedDescription]
        }
        var dumped = ""
        dump(error, to: &dumped)
        return texts + [dumped]
    }

    static func expectNoMarker(_ error: WebAuthError, _ callback: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in texts(of: error) {
            #expect(!text.contains(marker), "the error for \(callback) shows a secret: \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test("From callback text: no error quotes the code, a token, the state or the query", arguments: callbacks)
    func fromCallbackText(_ callback: String) {
        do {
            let response = try WebAuthResponse(callbackString: callback, expectedState: "s")
            _ = try response.requireCode()
            Issue.record("\(callback) was accepted")
        } catch {
            Self.expectNoMarker(error, callback)
        }
    }

    @Test("From a URL (as a provider reports it): same", arguments: callbacks)
    func fromCallbackURL(_ callback: String) throws {
        guard let url = URL(string: callback) else { return }  // text no URL can hold: covered above
        do {
            let response = try WebAuthResponse(callbackURL: url, expectedState: "s")
            _ = try response.requireCode()
            // `URL(string:)` re-encodes a few of them into something valid: fine, they are not errors.
        } catch {
            Self.expectNoMarker(error, callback)
        }
    }

    @Test("Mutated callbacks (inserted delimiters and escapes, seeded) never show the marker in an error")
    func mutatedCallbacks() async {
        var generator = SplitMix64(seed: 0x5EC2E7)
        let inserts = ["%", "&", "=", "#", "?", "%2", "%zz", "+", "%00", "%FF", "&code=", "&state=", " ", "@"]
        // The user-info seeds are left out: a mutation turns `//user:secret@host` into a path,
        // which errors show (a path is not a response parameter).
        let seeds = Self.callbacks.filter { !$0.contains("@127") } + [
            "http://127.0.0.1:8080/cb?code=\(Self.marker)&state=s",
            "http://127.0.0.1:8080/cb#access_token=\(Self.marker)&token_type=bearer&state=s",
        ]
        var errors = 0
        for iteration in 0..<3000 {
            // A debug build's dump() makes this seconds of work: it gives the test process's
            // other tasks their turn on the cooperative pool (two threads on two cores).
            if iteration % 50 == 0 { await Task.yield() }
            var text = Array(seeds[Int(generator.next() % UInt64(seeds.count))].unicodeScalars)
            let marker = Array(Self.marker.unicodeScalars)
            for _ in 0...(generator.next() % 3) {
                let position = Int(generator.next() % UInt64(text.count + 1))
                // Not inside the marker: splitting it would hide a leak of its halves.
                let insideMarker = stride(from: position - 1, to: position - marker.count, by: -1).contains { start in
                    start >= 0 && start + marker.count <= text.count && Array(text[start..<(start + marker.count)]) == marker
                }
                if insideMarker { continue }
                text.insert(contentsOf: inserts[Int(generator.next() % UInt64(inserts.count))].unicodeScalars, at: position)
            }
            var callback = ""
            callback.unicodeScalars.append(contentsOf: text)
            do {
                _ = try WebAuthResponse(callbackString: callback, expectedState: "s").requireCode()
            } catch {
                errors += 1
                Self.expectNoMarker(error, callback)
            }
        }
        #expect(errors > 1000, "the mutations produce errors to check")
    }

    @Test("A malformed escape names the parameter, not its value")
    func namesTheParameter() {
        do {
            // `%E9` is valid URL text but not UTF-8 once decoded (`%zz` is refused as URL text).
            _ = try WebAuthResponse(callbackString: "http://127.0.0.1/cb?code=\(Self.marker)%E9&state=s", expectedState: "s")
            Issue.record("accepted")
        } catch {
            #expect(error.code == .invalidResponse)
            #expect(error.message.contains("`code`"))
            #expect(error.url?.absoluteString == "http://127.0.0.1/cb")
        }
        do {
            _ = try WebAuthResponse(callbackString: "http://127.0.0.1/cb?code=a&code=b&state=s", expectedState: "s")
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("the parameter `code` more than once"))
        }
        do {
            _ = try WebAuthResponse(callbackString: "http://127.0.0.1/cb?\(Self.marker)=a&\(Self.marker)=b")
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("a parameter more than once"), "a name OAuth does not define is not quoted")
        }
    }

    @Test("A server error is shown on one short line; the values as sent stay in serverError")
    func serverErrorOnOneLine() {
        let description = "AADSTS50011: redirect mismatch.\r\nTrace ID: 1\r\n[error] forged log line\u{2028}x" + String(repeating: "y", count: 2000)
        let error = WebAuthError.server(.init(error: "invalid_request\nfake", errorDescription: description))
        #expect(!error.message.contains("\n") && !error.message.contains("\r") && !error.message.contains("\u{2028}"))
        #expect(error.message.contains("invalid_request fake"))
        #expect(error.message.contains("AADSTS50011: redirect mismatch. Trace ID: 1 [error] forged log line x"))
        #expect(error.message.count < 600)
        #expect(error.message.hasSuffix("…)."))
        #expect(error.serverError?.errorDescription == description)
    }
}

/// A small seeded generator, so a failing mutation is found again.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
