import Foundation
import ScenarioSupport
import Synchronization
import WebviewHostTestKit

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
}

/// Runs the floor and the library's two embedded variants as separate processes, interleaved,
/// and reads what each prints.
struct EmbeddedBenchmark {
    let floor: String
    let floorGTK4: String
    let soupFloor: String
    let sequentialFloor: String
    let sequentialFloorGTK4: String
    let msalReceiver: String
    let runs: Int
    /// Leaves out the loopback figure and the sequential sessions.
    let embeddedOnly: Bool
    /// Only the WebAuthn figures: the ceremony, and the library's window with and without the bridge.
    let webauthnOnly: Bool
    let pagePort: Int
    static let variants = ["floor", "swift-floor", "own-window", "caller-view"]
    /// Processes each round starts: the variants, the library's window after `prewarm()`, and the
    /// library's window with a security key reachable (the WebAuthn bridge in its view).
    static let processes = variants + ["own-window-warm", "own-window-security-keys"]
    static let webauthnProcesses = ["own-window", "own-window-security-keys"]

    /// The loopback figure: per round, a process of `sessionsPerRound` sessions each, the bare
    /// libsoup receiver and the library's system-browser listener interleaved.
    func loopback(environment: [String: String]) throws -> [Figure] {
        var figure = Figure(
            name: "loopback callback sent -> caller resumed", unit: "ms", goal: "<= 2 ms (junk: <= 5 ms)",
            variants: ["soup-floor", "system-browser", "system-browser-junk", "msal-python"])
        var files = Figure(
            name: "open files after the last session, vs after the first", unit: "fds", goal: "no growth",
            variants: ["after-first", "system-browser", "system-browser-junk"])
        let desktop = try TestDesktop(browserCommand: "true %u")  // a "browser" that exits at once
        defer { desktop.remove() }
        let environment = environment.merging(desktop.environment) { $1 }
        let sessions = 10
        // msal-python's receiver, when the msal package is there (`pip install msal`).
        let probe = try CleanSpawn(["python3", "-c", "import msal"], environment: environment)
        let hasMSAL = probe.waitForExit() == 0
        let variants = figure.variants.filter { hasMSAL || $0 != "msal-python" }
        for round in -1..<runs {
            for variant in round % 2 == 0 ? variants : variants.reversed() {
                let command =
                    switch variant {
                    case "soup-floor": [soupFloor, "\(sessions)"]
                    case "msal-python": ["python3", msalReceiver, "\(sessions)"]
                    case "system-browser": [CommandLine.arguments[0], "loopback", "\(sessions)"]
                    default: [CommandLine.arguments[0], "loopback", "\(sessions)", "1000", "400"]  // junk, 400 held open
                    }
                let child = try CleanSpawn(command, environment: environment)
                let output = String(decoding: child.output?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
                let status = child.waitForExit()
                let samples = output.split(separator: "\n").compactMap { line -> Double? in
                    let parts = line.split(separator: " ")
                    guard parts.count == 3, parts[0] == "callback", let sent = Int64(parts[1]), let resumed = Int64(parts[2]) else { return nil }
                    return Double(resumed - sent) / 1e6
                }
                guard status == 0, samples.count == sessions else {
                    let errors = String(decoding: child.errors?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
                    throw BenchmarkFailure(description: "\(variant) failed (status \(status)):\n\(output)\n\(errors)")
                }
                if round >= 0 { figure.samples[variant, default: []] += samples }
                let fds = output.split(separator: "\n").first { $0.hasPrefix("fds ") }?.split(separator: " ").compactMap { Double($0) }
                if round >= 0, let fds, fds.count == 2 {
                    files.samples["after-first", default: []].append(fds[0])
                    files.samples[variant, default: []].append(fds[1])
                }
            }
        }
        return [figure, files]
    }

    /// 100 sessions in one process, three processes per variant: RSS growth after the first 10
    /// (median [min-max]: one process alone varies by a MiB or two with the allocator), and the
    /// handlers left on a caller's view (the most any process left). Lines for the report's notes.
    /// Each toolkit has its floor (Baselines/sequential-floor.c, built for GTK 3 and for GTK 4).
    func sequential(page: URL, redirect: String, environment: [String: String], toolkits: [ToolkitRun]) throws -> [String] {
        var notes: [String] = []
        let quickPage = page.absoluteString + "?wait=10"
        var floorGrowth: Double?
        let variants = toolkits.flatMap { toolkit in ["floor", "own-window", "own-window-certificate", "caller-view"].map { ($0, toolkit) } }
        for (variant, toolkit) in variants {
            var growths: [Double] = []
            var handlersLeft: Int?
            var sessionMilliseconds: [Double] = []
            for _ in 0..<3 {
                let command = variant == "floor"
                    ? [toolkit.sequentialFloor, "100", quickPage, redirect]
                    : [toolkit.child, "sequential", variant + toolkit.suffix, "100", quickPage, redirect]
                let child = try CleanSpawn(command, environment: environment)
                let output = String(decoding: child.output?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
                let status = child.waitForExit()
                var marks: [String: Int] = [:]
                for line in output.split(separator: "\n") {
                    let parts = line.split(separator: " ")
                    if parts.count == 2, let value = Int(parts[1]) { marks[String(parts[0])] = value }
                }
                guard status == 0, let after10 = marks["rss-after-10"], let afterAll = marks["rss-after-all"] else {
                    throw BenchmarkFailure(description: "sequential \(variant)\(toolkit.suffix) failed (status \(status)):\n\(output)")
                }
                growths.append(Double(afterAll - after10) / 1024)
                if let handlers = marks["handlers-left"] { handlersLeft = max(handlersLeft ?? 0, handlers) }
                if let median = marks["session-us-median"] { sessionMilliseconds.append(Double(median) / 1000) }
            }
            sessionMilliseconds.sort()
            growths.sort()
            if variant == "floor" {
                floorGrowth = growths[1]
                notes.append(String(
                    format: "100 sequential sessions, floor%@ (Baselines/sequential-floor.c: a bare window and view each, one context): RSS growth after the first 10: %+.2f [%+.2f to %+.2f] MiB over 3 processes",
                    toolkit.suffix, growths[1], growths[0], growths[2]))
                continue
            }
            var note = String(
                format: "100 sequential sessions, %@: RSS growth after the first 10: %+.2f [%+.2f to %+.2f] MiB over 3 processes (floor %+.2f; goal < 2 MiB)",
                variant + toolkit.suffix, growths[1], growths[0], growths[2], floorGrowth ?? .nan)
            if let handlersLeft { note += "; handlers left on the caller's view: \(handlersLeft) (goal 0)" }
            if sessionMilliseconds.count == 3 {
                // own-window-certificate: each sign-in in an ephemeral store of its own (the app's
                // client certificate), against own-window's shared store: what that costs.
                note += String(
                    format: "; a sign-in after the first 10 (prepare -> caller resumed): %.1f [%.1f to %.1f] ms",
                    sessionMilliseconds[1], sessionMilliseconds[0], sessionMilliseconds[2])
            }
            notes.append(note)
        }
        return notes
    }

    /// The toolkits the embedded figures are measured in: the suffix of their variants' names
    /// (`own-window-gtk4`), what the figures' names get, and the programs that run them.
    struct ToolkitRun {
        let suffix: String
        let label: String
        let floor: String
        /// The bare program of the sequential-sessions figure.
        let sequentialFloor: String
        let child: String
    }

    /// The embedded figures, once per toolkit; `samples` are filled per variant (with its suffix).
    static func embeddedFigures() -> [Figure] {
        [
            Figure(name: "process start -> login page loaded", unit: "ms", goal: "<= 1.05x", variants: variants),
            Figure(
                name: "start -> login page loaded, prewarmed vs cold", unit: "ms", goal: "<= 0.1x",
                variants: ["own-window", "own-window-warm"]),
            Figure(
                name: "redirect navigation -> caller resumed", unit: "ms", goal: "<= 2 ms, <= 1.3x", variants: variants,
                limits: ["own-window": .ratio(1.3), "caller-view": .ratio(1.3)]),
            Figure(
                name: "redirect 302 sent -> caller resumed", unit: "ms", goal: "<= 1.3x", variants: variants,
                limits: ["own-window": .ratio(1.3), "caller-view": .ratio(1.3)]),
            Figure(name: "peak RSS of the UI process", unit: "MiB", goal: "<= +10 MiB", variants: variants),
            Figure(
                name: "peak RSS over the Swift floor (what the library adds)", unit: "MiB", goal: "",
                variants: ["swift-floor", "own-window", "caller-view"], limits: ["own-window": .over(5), "caller-view": .over(3)]),
            Figure(
                name: "peak RSS with a prewarmed window vs without", unit: "MiB", goal: "(cost, reported)",
                variants: ["own-window", "own-window-warm"]),
            // Issue 42: the view with the WebAuthn API injected loads no slower than without it.
            Figure(
                name: "process start -> login page loaded, WebAuthn bridge vs none", unit: "ms", goal: "<= 1.05x",
                variants: ["own-window", "own-window-security-keys"], limits: ["own-window-security-keys": .ratio(1.05)]),
            Figure(
                name: "peak RSS, WebAuthn bridge vs none", unit: "MiB", goal: "(cost, reported)",
                variants: ["own-window", "own-window-security-keys"]),
        ]
    }

    func run() throws -> Report {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A login page that leaves by itself for `/done`, which answers 302 to the redirect URI, as
        // an authorization server does.
        let redirect = "http://127.0.0.1:18081/callback"
        let page = URL(string: "http://127.0.0.1:\(pagePort)/login")!
        PageServer.redirectLocation = "\(redirect)?code=the-code&state=s"
        PageServer.page = """
            <!doctype html><meta charset="utf-8"><title>Sign in</title>
            <form><label>User <input name="u"></label><label>Password <input name="p" type="password"></label><button>Sign in</button></form>
            <script>
            var wait = Number(new URLSearchParams(location.search).get('wait') || 300);
            setTimeout(function () { location.href = '/done'; }, wait);
            </script>
            """

        let me = CommandLine.arguments[0]
        let toolkits = [
            ToolkitRun(suffix: "", label: "", floor: floor, sequentialFloor: sequentialFloor, child: me),
            ToolkitRun(
                suffix: "-gtk4", label: " (GTK 4)", floor: floorGTK4, sequentialFloor: sequentialFloorGTK4,
                child: URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("webview-host-bench-gtk4").path),
        ]
        let webauthnFigures = ["process start -> login page loaded, WebAuthn bridge vs none", "peak RSS, WebAuthn bridge vs none"]
        var figures = toolkits.map { toolkit in
            Self.embeddedFigures().filter { !webauthnOnly || webauthnFigures.contains($0.name) }.map { $0.forToolkit(suffix: toolkit.suffix, label: toolkit.label) }
        }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_AT_BRIDGE"] = "1"
        // Each variant's data folders stay apart from the person's.
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("data").path
        environment["XDG_CACHE_HOME"] = folder.appendingPathComponent("cache").path
        // The security key the WebAuthn variants reach (the library finds it through this
        // variable, and warns on standard error that it does).
        let authenticator = try WebAuthnBenchmark.makeAuthenticator()
        defer { authenticator.stop() }
        var withKey = environment
        withKey["WEBVIEWHOST_VIRTUAL_AUTHENTICATORS"] = authenticator.socketPath
        PageServer.webauthnPage = WebAuthnBenchmark.page(redirect: redirect)
        let processes = toolkits.flatMap { toolkit in (webauthnOnly ? Self.webauthnProcesses : Self.processes).map { (toolkit, $0) } }
        // A warm-up of each, not counted (the page cache, the web process binary).
        for round in -1..<runs {
            // Rotate the order so no variant always runs first after an idle moment.
            let order = (0..<processes.count).map { processes[($0 + max(round, 0)) % processes.count] }
            for (toolkit, variant) in order {
                let command = variant == "floor"
                    ? [toolkit.floor, page.absoluteString, redirect]
                    : [toolkit.child, "child", variant + toolkit.suffix, page.absoluteString, redirect]
                PageServer.redirectSent.store(0, ordering: .sequentiallyConsistent)
                let began = Child.monotonicNanoseconds()
                let child = try CleanSpawn(command, environment: variant == "own-window-security-keys" ? withKey : environment)
                let output = String(decoding: child.output?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
                let status = child.waitForExit()
                var marks: [String: Int64] = [:]
                for line in output.split(separator: "\n") {
                    let parts = line.split(separator: " ", maxSplits: 1)
                    if parts.count == 2, let value = Int64(parts[1]) { marks[String(parts[0])] = value }
                }
                let sent = PageServer.redirectSent.load(ordering: .sequentiallyConsistent)
                guard status == 0, let loaded = marks["loaded"], let navigated = marks["navigated"],
                    let resumed = marks["resumed"], let hwm = marks["hwm"], sent > 0
                else {
                    let errors = String(decoding: child.errors?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
                    throw BenchmarkFailure(description: "\(variant)\(toolkit.suffix) failed (status \(status)):\n\(output)\n\(errors)")
                }
                guard round >= 0 else { continue }
                var samples: [String: Double] = [
                    "peak RSS with a prewarmed window vs without": Double(hwm) / 1024,
                    "process start -> login page loaded": Double(loaded - began) / 1e6,
                    "redirect navigation -> caller resumed": Double(resumed - navigated) / 1e6,
                    "redirect 302 sent -> caller resumed": Double(resumed - sent) / 1e6,
                    "peak RSS of the UI process": Double(hwm) / 1024,
                    "peak RSS over the Swift floor (what the library adds)": Double(hwm) / 1024,
                    "process start -> login page loaded, WebAuthn bridge vs none": Double(loaded - began) / 1e6,
                    "peak RSS, WebAuthn bridge vs none": Double(hwm) / 1024,
                ]
                if let started = marks["started"] { samples["start -> login page loaded, prewarmed vs cold"] = Double(loaded - started) / 1e6 }
                let index = toolkits.firstIndex { $0.suffix == toolkit.suffix }!
                for (figure, value) in samples {
                    guard let position = figures[index].firstIndex(where: { $0.name == figure + toolkit.label }) else { continue }
                    if figures[index][position].variants.contains(variant + toolkit.suffix) {
                        figures[index][position].samples[variant + toolkit.suffix, default: []].append(value)
                    }
                }
            }
        }
        let ceremony = try WebAuthnBenchmark(
            runs: runs, pagePort: pagePort, redirect: redirect, children: toolkits.map { ("page" + $0.suffix, $0.child) },
            environment: withKey, authenticator: authenticator
        ).run()
        let leanRun = embeddedOnly || webauthnOnly
        return Report(
            figures: figures.flatMap { $0 } + [ceremony] + (leanRun ? [] : try loopback(environment: environment)),
            runs: runs,
            notes: leanRun ? [] : try sequential(page: page, redirect: redirect, environment: environment, toolkits: toolkits))
    }
}
