import Foundation

/// A relying party that is not ours: python3-fido2's `Fido2Server` (Tests/Fixtures/WebAuthn/relying_party.py).
public enum RelyingPartyServer {
    /// Runs `relying_party.py <command> <request as JSON>` and returns its verdict; awaited, so no
    /// thread waits on Python.
    public static func check(_ command: String, _ request: [String: Any]) async throws -> [String: Any] {
        let script = Checkout.fixture("WebAuthn").appendingPathComponent("relying_party.py").path
        let json = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
        let child = try CleanSpawn(["/usr/bin/python3", script, command, json], environment: ProcessInfo.processInfo.environment)
        let collected = await child.collect()
        return (try? JSONSerialization.jsonObject(with: collected.output) as? [String: Any])
            ?? ["ok": false, "error": String(decoding: collected.output + collected.errors, as: UTF8.self)]
    }
}
