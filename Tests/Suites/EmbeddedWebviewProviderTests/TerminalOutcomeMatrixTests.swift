import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// Every way an embedded session ends, in the library's window and in a caller's view: exactly
/// one outcome, the terminal event last, the slot free, the window gone, no handler left on the
/// caller's view, and no request on the redirect port. Prints one table per mode.
@Suite("Embedded sign-in: terminal-outcome matrix", .serialized, .desktop)
struct TerminalOutcomeMatrixTests {
    static let cases: [(kind: String, outcome: String)] = [
        ("success", "success"),
        ("window-closed", "userCanceled"),
        ("cancel-main", "canceled"),
        ("cancel-thread", "canceled"),
        ("task-cancel", "canceled"),
        ("timeout", "timedOut"),
        ("network", "network"),
        ("tls", "tls"),
        ("web-process", "webProcessTerminated"),
        ("duplicate-redirect", "success"),
        ("late-redirect", "success"),
        ("state-mismatch", "stateMismatch"),
        ("oauth-error", "server"),
    ]

    @Test("Terminal-outcome matrix", arguments: Platform.standard, ["window", "view"])
    func matrix(_ platform: Platform, mode: String) async throws {
        var rows: [[String]] = []
        for (kind, expectedOutcome) in Self.cases {
            // A caller's view has no window of ours to close: the app closes its own window and cancels.
            let expected = mode == "view" && kind == "window-closed" ? "canceled" : expectedOutcome
            let report: ScenarioReport
            do {
                report = try await EmbeddedWebviewProviderTests.scenario(.outcome, mode, kind, on: platform)
            } catch {
                Issue.record("\(mode) \(kind): \(error)")
                rows.append([kind, "error", "-", "-", "-", "-", "-"])
                continue
            }
            let outcome = report[.outcome] ?? "?"
            let events = (report[.eventNames] ?? []).joined(separator: ",")
            rows.append([
                kind, outcome, events, "\(report[.slotFree] ?? false)", "\(report[.windowGone] ?? false)",
                "\(report[.handlersLeft] ?? -1)", "\(report[.redirectPortHits] ?? -1)",
            ])
            #expect(outcome == expected, "\(platform.testDescription) \(mode) \(kind): \(report[.errorMessage] ?? "")")
            #expect(report[.terminalCount] == 1, "\(mode) \(kind): exactly one outcome")
            #expect(report[.resumeCount] == 1, "\(mode) \(kind): the caller resumed once")
            #expect(report[.terminalLast] == true, "\(mode) \(kind): the terminal event is the last")
            #expect(report[.slotFree] == true, "\(mode) \(kind): a new session can start")
            #expect(report[.windowGone] == true, "\(mode) \(kind): no window of the library is left")
            #expect(report[.handlersLeft] == 0, "\(mode) \(kind): no handler left on the caller's view")
            #expect(report[.redirectPortHits] == 0, "\(mode) \(kind): the code never reached the network")
            if kind == "tls" { #expect(report[.tlsServerRequests] == 0) }
        }
        Self.printTable(platform: platform, mode: mode, rows: rows)
    }

    static func printTable(platform: Platform, mode: String, rows: [[String]]) {
        let header = ["case", "outcome", "events", "slot free", "window gone", "handlers left", "redirect-port hits"]
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ row: [String]) -> String {
            "| " + row.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: " | ") + " |"
        }
        var text = "\nTerminal outcomes, embedded provider, \(platform.testDescription), \(mode == "view" ? "caller's view" : "library's window"):\n"
        text += line(header) + "\n"
        text += "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|\n"
        for row in rows { text += line(row) + "\n" }
        print(text)
    }
}
