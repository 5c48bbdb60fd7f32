// The Swift side of the GObject layer's memory benchmark (Tests/Benchmarks/gobject-rss.sh): N
// sign-ins in the library's window through the Swift API, against the Entra-like provider on
// 127.0.0.1 (fake_entra.py at ISSUER, which answers at once), the process's resident memory read
// after a warm-up of 5 and after all of them.
import Foundation
import ScenarioSupport
import SignIn
import WebviewHost

@MainActor
func rssSignIns(_ arguments: [String]) async -> ScenarioReport {
    let count = arguments.first.flatMap(Int.init) ?? 100
    var facts = ScenarioReport()
    do throws(WebAuthError) {
        let app = try PublicClientApplication(configuration: .init(
            clientID: "entra-app", authority: issuer, redirectURI: URL(string: "http://127.0.0.1:23685/embedded-callback")!,
            tokenCacheStorage: InMemoryTokenCacheStorage()))
        for index in 1...count {
            _ = try await app.acquireToken(with: InteractiveTokenParameters(
                scopes: ["User.Read"], webviewParameters: WebviewParameters(webviewType: .embedded, timeout: .seconds(60))))
            if index == 5 { facts[.rssAfterWarmUp] = residentKilobytes() }
        }
        facts[.rssAfterAll] = residentKilobytes()
        facts[.outcome] = "success"
    } catch {
        facts[.outcome] = "\(error.code)"
        facts[.message] = error.message
    }
    return facts
}

/// VmRSS from /proc/self/status, in kB.
func residentKilobytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}
