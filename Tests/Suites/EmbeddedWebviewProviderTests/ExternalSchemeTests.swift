import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// A page navigating to `mailto:`, on a test desktop whose `mailto` handler records every launch
/// (GIO starts it as on a real desktop, on a private session bus).
@Suite("Embedded sign-in: foreign schemes", .serialized, .desktop)
struct ExternalSchemeTests {
    static func scenario(_ mode: String, _ kind: String, on platform: Platform) async throws -> ScenarioReport {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-launches-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = folder.appendingPathComponent("record-launch.sh")
        try "#!/bin/sh\necho \"$1\" >> \"$LAUNCH_LOG\"\n".write(to: recorder, atomically: true, encoding: .utf8)
        // Run by /bin/sh, not executed itself: a child another test spawns at this moment may hold
        // the just-written file open, and executing it would then fail with ETXTBSY.
        let desktop = try TestDesktop(browserCommand: "/bin/sh \(recorder.path) %u", schemes: ["mailto"])
        defer { desktop.remove() }
        var environment = desktop.environment
        environment["LAUNCH_LOG"] = folder.appendingPathComponent("launches.log").path
        let report = try await ScenarioRunner.run(
            EmbeddedScenario.schemes, in: platform.toolkit.program, arguments: [mode, kind], environment: environment,
            launcher: ["dbus-run-session", "--"], display: platform.display)
        #expect(report[.gdkDisplay] == platform.gdkDisplayType, "GTK ran on another display than asked")
        return report
    }

    static func expectSessionWentOn(_ report: ScenarioReport) {
        #expect(report[.endedBeforeCancel] == false)
        #expect(report[.uriAfterAnswer]?.hasSuffix("/authorize") == true, "the sign-in page stays where it is")
        #expect(report[.outcome] == "canceled")
        #expect(report[.callbackHits] == 0)
        #expect(report[.handlersLeft] == 0)
    }

    @Test("A page's timer navigating to mailto: (no gesture) launches nothing and asks nothing", arguments: Platform.standard, ["window", "view"])
    func timerLaunchesNothing(_ platform: Platform, mode: String) async throws {
        let report = try await Self.scenario(mode, "timer", on: platform)
        #expect(report[.dialogShown] == false)
        #expect(report[.launchesAfterEnd] == [])
        Self.expectSessionWentOn(report)
    }

    @Test(
        "After a gesture the library's window asks first: modal over the sign-in window, names the handler, Cancel is the default",
        arguments: Platform.everywhere)
    func gestureAsks(_ platform: Platform) async throws {
        let report = try await Self.scenario("window", "gesture-cancel", on: platform)
        #expect(report[.dialogShown] == true)
        #expect(report[.dialogModal] == true)
        #expect(report[.dialogTransientForSignIn] == true)
        #expect(report[.dialogButtons] == ["_Cancel", "_Open"])
        #expect(report[.dialogDefaultIsCancel] == true)
        let texts = report[.dialogTexts] ?? []
        #expect(texts.contains("Open mailto link?"))
        #expect(texts.contains { $0.contains("mailto:someone@example.com") && $0.contains("Test Browser") })
        // Answered Cancel: nothing launched, the dialog is gone, the session goes on.
        #expect(report[.launchesAfterEnd] == [])
        #expect(report[.dialogsBeforeEnd] == 0)
        Self.expectSessionWentOn(report)
    }

    @Test("Answered Open: the handler is started once with the URI", arguments: Platform.everywhere)
    func gestureOpen(_ platform: Platform) async throws {
        let report = try await Self.scenario("window", "gesture-open", on: platform)
        #expect(report[.dialogShown] == true)
        #expect(report[.launchesAfterEnd] == ["mailto:someone@example.com"])
        Self.expectSessionWentOn(report)
    }

    @Test("An allow-listed scheme is handed on after a gesture without a question", arguments: Platform.standard, ["window", "view"])
    func allowListed(_ platform: Platform, mode: String) async throws {
        let report = try await Self.scenario(mode, "allowed", on: platform)
        #expect(report[.dialogShown] == false)
        #expect(report[.launchesAfterEnd] == ["mailto:someone@example.com"])
        Self.expectSessionWentOn(report)
    }

    @Test("refuseAll (and a caller's view with the default policy) never launch or ask, even after a gesture",
          arguments: Platform.standard, [("window", "refuse-all"), ("window", "allowed-no-ask"), ("view", "gesture-open")])
    func refused(_ platform: Platform, page: (mode: String, kind: String)) async throws {
        let report = try await Self.scenario(page.mode, page.kind, on: platform)
        #expect(report[.dialogShown] == false)
        #expect(report[.launchesAfterEnd] == [])
        Self.expectSessionWentOn(report)
    }

    @Test("A question still up when the session ends is destroyed with it and launches nothing", arguments: Platform.standard)
    func questionEndsWithSession(_ platform: Platform) async throws {
        let report = try await Self.scenario("window", "dialog-end", on: platform)
        #expect(report[.dialogShown] == true)
        #expect(report[.dialogsBeforeEnd] == 1)
        #expect(report[.dialogsAfterEnd] == 0)
        #expect(report[.launchesAfterEnd] == [])
        #expect(report[.outcome] == "canceled")
    }
}
