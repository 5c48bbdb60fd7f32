import Foundation
import ScenarioSupport
import WebviewHost

/// Hostile local processes against the real loopback listener, over real sockets from this
/// process (off the main thread, where the listener runs).
enum HostileLoopback {
    /// The number of open file descriptors of this process (`/proc/self/fd`).
    static func openFileDescriptors() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count - 1  // the listing's own
    }

    /// A flag shared with a sender thread.
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var raised = false
        var isRaised: Bool { lock.withLock { raised } }
        func raise() { lock.withLock { raised = true } }
    }

    /// A warm-up sign-in (so that what GLib sets up once exists), then the baseline of open
    /// descriptors, then a sign-in under load; then the count again.
    @MainActor
    static func load() async throws -> ScenarioReport {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)

        _ = try await SignInRun(browserEnvironment: browser(), expectBrowser: false).run()
        await ScenarioHost.idle(.milliseconds(500))
        let baseline = openFileDescriptors()
        let gate = NSTemporaryDirectory() + "hostile-load-gate-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: gate) }
        var report = try await SignInRun(
            timeout: .seconds(40), browserEnvironment: browser(["TEST_BROWSER_WAIT_FOR": gate]), expectBrowser: false,
            whilePending: { redirect in underLoad(port: redirect.port ?? 0, gate: gate) }
        ).run()
        // The browser finishes and closed connections are released when the machine gets to it:
        // waited for until the deadline for an expected event, so a count still above then is a leak.
        _ = await ScenarioHost.wait(upTo: Patience.event) { openFileDescriptors() <= baseline }
        report[.fdBaseline] = baseline
        report[.fdAfter] = openFileDescriptors()
        return report
    }

    private static func underLoad(port: Int, gate: String) -> ScenarioReport {
        var results = ScenarioReport()
        let own = "127.0.0.1:\(port)"
        // 1,000 connections; 600 of them closed again (half after a line of garbage), 400 held.
        var fds: [Int32] = []
        for _ in 0..<1000 { if let fd = RawHTTP.connect(port: port) { fds.append(fd) } }
        results[.opened] = fds.count
        for (index, fd) in fds.dropFirst(400).enumerated() {
            if index % 2 == 0 { RawHTTP.send(fd, Array("GARBAGE\r\n\r\n".utf8)) }
            close(fd)
        }
        let held = Array(fds.prefix(400))
        // Half of the held ones start a request to the callback and never finish its first line.
        for fd in held.prefix(200) { RawHTTP.send(fd, Array("GET /callback?code=held".utf8)) }
        // Slow senders: a byte every 100 ms each, for as long as the session runs.
        let slow = (0..<5).compactMap { _ in RawHTTP.connect(port: port) }
        let stop = Flag()
        let slowBytes = Array("GET /callback?code=slow&state=s-123 HTTP/1.1\r\nHost: \(own)\r\nX-Slow: ".utf8)
        let slowDone = DispatchSemaphore(value: 0)
        let sender = Thread {
            var index = 0
            while !stop.isRaised {
                for fd in slow { RawHTTP.send(fd, [index < slowBytes.count ? slowBytes[index] : UInt8(ascii: "a")]) }
                index += 1
                usleep(100_000)
            }
            results_slowBytes.set(index)
            slowDone.signal()
        }
        sender.start()
        // 1 MiB of headers to another path.
        let bigHeader = "GET /other HTTP/1.1\r\nHost: \(own)\r\nX-Big: " + String(repeating: "a", count: 1 << 20) + "\r\n\r\n"
        results[.hugeHeaderStatus] = RawHTTP.exchange(port: port, Array(bigHeader.utf8)).status ?? -1
        // 10 MiB form_post bodies: to another path, and to the callback path as text/plain.
        let body = "code=evil&state=s-123&pad=" + String(repeating: "b", count: 10 << 20)
        for (key, path, type) in [
            (ReportKey<Int>.hugeBodyOtherPathStatus, "/other", "application/x-www-form-urlencoded"),
            (.hugeBodyCallbackStatus, "/callback", "text/plain"),
        ] {
            let request = "POST \(path) HTTP/1.1\r\nHost: \(own)\r\nContent-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
            results[key] = RawHTTP.exchange(port: port, Array(request.utf8)).status ?? 0
        }
        // A second burst of connections on top of the held ones.
        var burstAnswered = 0
        for _ in 0..<50 where RawHTTP.exchange(port: port, "GET /favicon.ico HTTP/1.1\r\nHost: \(own)\r\n\r\n") == 404 {
            burstAnswered += 1
        }
        results[.burstAnswered] = burstAnswered
        // Now the browser: first hop, login page, the real callback, while 400 + 5 are held.
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        var ended = false
        for _ in 0..<300 {
            if let fd = RawHTTP.connect(port: port) { close(fd) } else { ended = true; break }
            usleep(100_000)
        }
        results[.portClosedAfterOutcome] = ended
        // The held connections were closed by the listener (read sees the end, or a reset).
        // The listener lets go of what it still holds within a few seconds of the outcome (it
        // answers requests it already read for up to 2 s); wait for each end, 10 s at most in all.
        var heldClosedByListener = 0
        let deadline = Date().addingTimeInterval(10)
        for fd in held {
            var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&waiting, 1, Int32(max(0, deadline.timeIntervalSinceNow) * 1000))
            var byte: UInt8 = 0
            let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
            if count == 0 || (count < 0 && errno != EAGAIN) { heldClosedByListener += 1 }
        }
        results[.heldClosedByListener] = heldClosedByListener
        stop.raise()
        slowDone.wait()
        results[.slowBytesSent] = results_slowBytes.get()
        for fd in held + slow { close(fd) }
        return results
    }

    private static let results_slowBytes = Counter()

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func set(_ new: Int) { lock.withLock { value = new } }
        func get() -> Int { lock.withLock { value } }
    }

    /// Twenty valid callbacks sent at the same moment on connections opened beforehand.
    @MainActor
    static func concurrentCallbacks() async throws -> ScenarioReport {
        try await SignInRun(
            browserEnvironment: browser(["TEST_BROWSER_NEVER_FETCH": "1"]), expectBrowser: false,
            whilePending: { redirect in
                let port = redirect.port ?? 0
                let fds = (0..<20).compactMap { _ in RawHTTP.connect(port: port) }
                let answers = Answers()
                let group = DispatchGroup()
                let start = DispatchSemaphore(value: 0)
                for (index, fd) in fds.enumerated() {
                    group.enter()
                    Thread {
                        start.wait()
                        RawHTTP.send(fd, Array("GET /callback?code=c\(index)&state=s-123 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
                        let response = RawHTTP.readResponse(fd)
                        close(fd)
                        let kind = response.text.contains("Sign-in finished") ? "finished"
                            : response.text.contains("already ended") ? "already-ended" : "other"
                        answers.add("c\(index) \(response.status.map(String.init) ?? "none") \(kind)")
                        group.leave()
                    }.start()
                }
                usleep(200_000)
                for _ in fds { start.signal() }
                group.wait()
                var facts = ScenarioReport()
                facts[.callbackAnswers] = answers.all.sorted()
                return facts
            }
        ).run()
    }

    final class Answers: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String] = []
        func add(_ value: String) { lock.withLock { values.append(value) } }
        var all: [String] { lock.withLock { values } }
    }
}
