import ExternalWebviewProvider
import Foundation
import ScenarioSupport
import Synchronization
import Testing
import WebviewHost
import WebviewHostTestKit

@Suite("ChildProcess: started clean, ended once, reaped once")
struct ChildProcessTests {
    /// The `key:` line of /proc/<pid>/status.
    func status(_ pid: pid_t, _ key: String) -> String? {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix(key + ":") }.map {
            $0.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
        }
    }

    @Test("Started from a Dispatch worker: empty signal mask, SIGTERM not ignored, its own process group")
    func cleanStart() async throws {
        let child = try await Task.detached { try ChildProcess(["sleep", "30"]) }.value
        #expect(status(child.pid, "SigBlk") == "0000000000000000", "no signal is blocked in the child")
        let ignored = UInt64(status(child.pid, "SigIgn") ?? "", radix: 16) ?? .max
        #expect(ignored & (1 << (UInt64(SIGTERM) - 1)) == 0, "SIGTERM is not ignored")
        #expect(ignored & (1 << (UInt64(SIGPIPE) - 1)) == 0, "SIGPIPE is not ignored")
        #expect(getpgid(child.pid) == child.pid, "it leads a process group of its own")
        let ended = Mutex<ChildProcess.ExitStatus?>(nil)
        child.end(grace: .zero) { status in ended.withLock { $0 = status } }
        child.end(grace: .zero) { _ in Issue.record("a second end ran") }
        #expect(await ScenarioHost.wait { ended.withLock { $0 } != nil }, "it was reaped")
        #expect(ended.withLock { $0 } == .signaled(SIGKILL))
        #expect(child.exitStatus == .signaled(SIGKILL))
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(child.pid)"), "killed and reaped: no zombie")
    }

    @Test("end() waits for a child that exits by itself, then kills what it left in its group")
    func graceAndGroup() async throws {
        let temp = try TemporaryDirectory()
        let marker = temp.url.appendingPathComponent("grandchild").path
        // The shell starts a grandchild in its group, records it, and exits when its input closes.
        let child = try ChildProcess(
            ["sh", "-c", "sleep 30 & echo $! > \(marker).part; mv \(marker).part \(marker); read line; exit 7"],
            standardInput: .pipe)
        #expect(await ScenarioHost.wait { FileManager.default.fileExists(atPath: marker) }, "the shell started its grandchild")
        let grandchild = try String(contentsOfFile: marker, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        close(child.standardInput!)
        let ended = Mutex<ChildProcess.ExitStatus?>(nil)
        child.end(grace: .seconds(5)) { status in ended.withLock { $0 = status } }
        #expect(await ScenarioHost.wait { ended.withLock { $0 } != nil }, "it was reaped")
        #expect(ended.withLock { $0 } == .exited(7), "it had time to exit by itself")
        // Orphaned, it is reaped by init, on init's time: wait for that.
        let pids = try temp.subdirectory("pids")
        _ = FileManager.default.createFile(atPath: pids.appendingPathComponent(grandchild).path, contents: nil)
        #expect(await survivors(in: pids) == [], "its grandchild was killed with the group")
    }

    @Test("A program that does not exist is a SpawnError that names it")
    func missing() {
        #expect {
            try ChildProcess(["/nonexistent/program"])
        } throws: { error in
            (error as? ChildProcess.SpawnError)?.description.contains("/nonexistent/program") == true
        }
    }

    @Test("The conformance suite reports a process left running after dismiss")
    @MainActor
    func conformanceSeesLeftovers() async throws {
        let stray = try ChildProcess(["sleep", "30"])  // what a careless provider would leave behind
        defer { stray.end(grace: .zero) }
        let fixture = WebviewProviderConformance.Fixture(
            redirectURI: redirect, parameters: .init(), environment: headless,
            succeedingAuthorizationURL: { _, state in authorization("ok", state: state) },
            pendingAuthorizationURL: { _ in authorization("wait") },
            leftoverProcesses: {
                FileManager.default.fileExists(atPath: "/proc/\(stray.pid)") ? ["sleep (\(stray.pid))"] : []
            })
        let failures = await WebviewProviderConformance.run(
            provider: behaviourProvider("autopilot"), fixture: fixture, only: ["success"])
        #expect(failures.count == 1)
        #expect(failures.first?.detail.contains("processes left running after dismiss: [\"sleep (\(stray.pid))\"]") == true)
    }
}
