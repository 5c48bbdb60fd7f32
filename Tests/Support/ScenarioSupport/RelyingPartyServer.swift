import Foundation

/// A relying party that is not ours: python3-fido2's `Fido2Server` (Tests/Fixtures/WebAuthn/relying_party.py).
public enum RelyingPartyServer {
    public static func check(_ command: String, _ request: [String: Any]) throws -> [String: Any] {
        let script = Checkout.fixture("WebAuthn").appendingPathComponent("relying_party.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, command]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? ["ok": false, "error": String(decoding: data, as: UTF8.self)]
    }

    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
