import CFIDO2
import Crypto
import Foundation
import ScenarioSupport
import SecurityKeys
import Synchronization
import WebviewHost
import WebviewHostTestKit

/// What a WebAuthn ceremony adds over the authenticator's own time (issue 42): `get()` of a
/// discoverable credential on a virtual authenticator (``VirtualAuthenticator``, in this process,
/// presence given at once, no PIN), one round after another, the variants interleaved:
///
/// - `libfido2`, the floor: libfido2 alone, as any client must call it (open the key, one
///   get-assertion with the client data's hash, close), over the same socket transport.
/// - `ceremony`: the library's native side, what the bridge runs for a page's message: the
///   message parsed, the options read (`WebAuthnRequest`), `SecurityKeyCeremony` (find the key,
///   open it, ask it), the credential's JSON written. No window, no prompt.
/// - `page`, `page-gtk4`: `navigator.credentials.get()` on a page in the library's window, from
///   the call to the result, as the page's own `performance.now()` sees it (a child process per
///   round, 5 calls each; "Touch your security key" waits 250 ms, so a key that answers at once
///   shows no window).
struct WebAuthnBenchmark {
    let runs: Int
    let pagePort: Int
    let redirect: String
    let children: [(variant: String, program: String)]
    let environment: [String: String]
    let authenticator: VirtualAuthenticator
    static let callsPerChild = 5

    /// The authenticator every variant asks: one discoverable credential for 127.0.0.1.
    static func makeAuthenticator() throws -> VirtualAuthenticator {
        let authenticator = try VirtualAuthenticator()
        try authenticator.addCredential(.init(
            credentialId: Data((0..<32).map { UInt8($0) }), isResidentCredential: true, rpId: "127.0.0.1",
            signingKey: P256.Signing.PrivateKey(), userHandle: Data("bench-user".utf8), userName: "bench@example.test",
            userDisplayName: "Bench"))
        return authenticator
    }

    /// The page the `page` variants load: `callsPerChild` calls of `get()`, then the redirect URI
    /// with their times (microseconds) in the query, or the error.
    static func page(redirect: String) -> String {
        """
        <!doctype html><meta charset="utf-8"><title>Security key</title><p>Signing in with a security key…</p>
        <script>
        async function run() {
          const times = [];
          for (let i = 0; i < \(callsPerChild); i++) {
            const started = performance.now();
            const credential = await navigator.credentials.get({ publicKey: {
              challenge: crypto.getRandomValues(new Uint8Array(32)), rpId: location.hostname, userVerification: "discouraged", timeout: 60000 } });
            if (!(credential instanceof PublicKeyCredential)) { throw new Error("no credential"); }
            times.push(Math.round((performance.now() - started) * 1000));
          }
          return times;
        }
        window.addEventListener("load", () => run().then(
          (times) => { location.href = "\(redirect)?code=c&state=s&times=" + times.join(","); },
          (error) => { location.href = "\(redirect)?code=c&state=s&error=" + encodeURIComponent(error.name + ": " + error.message); }));
        </script>
        """
    }

    func run() throws -> Figure {
        var figure = Figure(
            name: "WebAuthn get(): call -> credential", unit: "ms", goal: "<= +50 ms",
            variants: ["libfido2", "ceremony"] + children.map(\.variant),
            limits: Dictionary(uniqueKeysWithValues: (["ceremony"] + children.map(\.variant)).map { ($0, Limit.over(50)) }))
        let device = authenticator.socketPath
        let origin = "http://127.0.0.1:\(pagePort)"
        for round in -1..<runs {
            let shift = max(round, 0) % figure.variants.count
            let order = Array(figure.variants[shift...] + figure.variants[..<shift])
            for variant in order {
                let samples: [Double]
                switch variant {
                case "libfido2":
                    samples = try (0..<Self.callsPerChild).map { _ in try Self.libfido2Assertion(socket: device) }
                case "ceremony":
                    samples = try (0..<Self.callsPerChild).map { _ in try Self.ceremonyAssertion(socket: device, origin: origin) }
                default:
                    let program = children.first { $0.variant == variant }!.program
                    samples = try pageAssertions(program: program, variant: variant)
                }
                if round >= 0 { figure.samples[variant, default: []] += samples }
            }
        }
        return figure
    }

    /// One child: the page's `get()` calls, in milliseconds.
    private func pageAssertions(program: String, variant: String) throws -> [Double] {
        let page = "http://127.0.0.1:\(pagePort)/webauthn"
        let child = try CleanSpawn([program, "child", variant, page, redirect], environment: environment)
        let output = String(decoding: child.output?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        let status = child.waitForExit()
        let times = output.split(separator: "\n").filter { $0.hasPrefix("webauthn-us ") }.compactMap { Double($0.split(separator: " ")[1]) }
        guard status == 0, times.count == Self.callsPerChild else {
            let errors = String(decoding: child.errors?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            throw BenchmarkFailure(description: "\(variant) failed (status \(status)):\n\(output)\n\(errors)")
        }
        return times.map { $0 / 1000 }
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    /// The floor: one get-assertion through libfido2 alone.
    static func libfido2Assertion(socket: String) throws -> Double {
        fido_init(0)
        let clientDataHash = Array(SHA256.hash(data: Data("{\"type\":\"webauthn.get\"}".utf8)))
        let start = ContinuousClock.now
        var device = fido_dev_new()
        var assertion = fido_assert_new()
        defer {
            fido_assert_free(&assertion)
            fido_dev_free(&device)
        }
        guard let device, let assertion, VirtualAuthenticatorIO.install(on: device) else {
            throw BenchmarkFailure(description: "libfido2: could not make a device")
        }
        var status = fido_dev_open(device, socket)
        guard status == FIDO_OK else { throw BenchmarkFailure(description: "libfido2: fido_dev_open: \(status)") }
        defer { fido_dev_close(device) }
        status = fido_assert_set_rp(assertion, "127.0.0.1")
        if status == FIDO_OK { status = fido_assert_set_clientdata_hash(assertion, clientDataHash, clientDataHash.count) }
        if status == FIDO_OK { status = fido_assert_set_up(assertion, FIDO_OPT_TRUE) }
        if status == FIDO_OK { status = fido_dev_get_assert(device, assertion, nil) }
        guard status == FIDO_OK, fido_assert_count(assertion) == 1 else {
            throw BenchmarkFailure(description: "libfido2: get-assertion: \(status)")
        }
        return milliseconds(since: start)
    }

    /// A prompt nobody sees: presence is given at once, no PIN is set, one account.
    private final class SilentPrompt: SecurityKeyPrompt {
        func show(_ step: SecurityKeyStep) async {}
        func askPIN(for site: String, retriesLeft: Int?) async -> String? { nil }
        func chooseAccount(for site: String, among accounts: [SecurityKeyAccount]) async -> Int? { 0 }
        func finish(_ error: SecurityKeyError?) async {}
    }

    /// The library's native side for one page message, as the bridge runs it.
    static func ceremonyAssertion(socket: String, origin: String) throws -> Double {
        let challenge = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
        let message = #"{"id":"1","kind":"get","options":{"challenge":"\#(challenge)","rpId":"127.0.0.1","userVerification":"discouraged","timeout":60000},"origin":"\#(origin)","userActivation":false,"stickyActivation":false}"#
        let environment = ["WEBVIEWHOST_VIRTUAL_AUTHENTICATORS": socket]
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Double, BenchmarkFailure>?>(nil)
        let start = ContinuousClock.now
        Task {
            let outcome: Result<Double, BenchmarkFailure>
            do {
                guard let object = try JSONSerialization.jsonObject(with: Data(message.utf8)) as? [String: Any],
                    let kind = object["kind"] as? String, let options = object["options"] as? [String: Any],
                    let origin = object["origin"] as? String
                else { throw BenchmarkFailure(description: "ceremony: the message could not be read") }
                let request = try WebAuthnRequest(kind: kind, options: options, origin: origin)
                guard case .get(let assertion) = request.operation else { throw BenchmarkFailure(description: "ceremony: not a get") }
                let ceremony = SecurityKeyCeremony(timeout: request.timeout ?? .seconds(300)) {
                    SecurityKeyDevice.connected(environment: environment)
                }
                let signed = try await ceremony.getAssertion(assertion, prompt: SilentPrompt())
                let reply = try JSONSerialization.data(withJSONObject: ["ok": true, "credential": request.credential(signed)])
                outcome = reply.isEmpty ? .failure(BenchmarkFailure(description: "ceremony: empty reply")) : .success(milliseconds(since: start))
            } catch let failure as BenchmarkFailure {
                outcome = .failure(failure)
            } catch {
                outcome = .failure(BenchmarkFailure(description: "ceremony: \(error)"))
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
