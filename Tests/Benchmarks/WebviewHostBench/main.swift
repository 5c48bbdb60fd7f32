// webview-host-bench: the embedded sign-in measured against a bare WebKitGTK program (the floor)
// in the same run, interleaved. See Tests/Benchmarks/README.md.
import CGLib
import CWebKitGTK3
import Foundation

struct Options: Sendable {
    var runs = 7
    var wantsJSON = false
    /// Only the embedded figures: no loopback figure, no sequential sessions (minutes on a slow machine).
    var embeddedOnly = false
    /// Only the WebAuthn figures (issue 42).
    var webauthnOnly = false
    var floorPath = ".build-bench/floor"
    var floorGTK4Path = ".build-bench/floor-gtk4"
    var soupFloorPath = ".build-bench/soup-floor"
    var sequentialFloorPath = ".build-bench/sequential-floor"
    var sequentialFloorGTK4Path = ".build-bench/sequential-floor-gtk4"
    var msalReceiverPath = "Tests/Benchmarks/Baselines/msal_receiver.py"

    init(_ arguments: [String]) {
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--runs": index += 1; runs = Int(arguments[safe: index] ?? "") ?? runs
            case "--json": wantsJSON = true
            case "--embedded-only": embeddedOnly = true
            case "--webauthn-only": webauthnOnly = true
            case "--floor": index += 1; floorPath = arguments[safe: index] ?? floorPath
            case "--floor-gtk4": index += 1; floorGTK4Path = arguments[safe: index] ?? floorGTK4Path
            case "--soup-floor": index += 1; soupFloorPath = arguments[safe: index] ?? soupFloorPath
            case "--sequential-floor": index += 1; sequentialFloorPath = arguments[safe: index] ?? sequentialFloorPath
            case "--sequential-floor-gtk4": index += 1; sequentialFloorGTK4Path = arguments[safe: index] ?? sequentialFloorGTK4Path
            case "--msal-receiver": index += 1; msalReceiverPath = arguments[safe: index] ?? msalReceiverPath
            default:
                FileHandle.standardError.write(Data("usage: webview-host-bench [--runs N] [--json] [--embedded-only] [--webauthn-only] [--floor PATH] [--floor-gtk4 PATH] [--soup-floor PATH] [--sequential-floor PATH] [--sequential-floor-gtk4 PATH] [--msal-receiver PATH]\n".utf8))
                exit(2)
            }
            index += 1
        }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
MainActor.assumeIsolated { ChildCommand.run(arguments) }

if arguments.first == "loopback", arguments.count >= 2, let sessions = Int(arguments[1]) {
    let junk = arguments.count >= 4 ? Int(arguments[2]) ?? 0 : 0
    let held = arguments.count >= 4 ? Int(arguments[3]) ?? 0 : 0
    MainActor.assumeIsolated { LoopbackChild.run(sessions: sessions, junk: junk, held: held) }
}

let options = Options(arguments)
for path in [
    options.floorPath, options.floorGTK4Path, options.soupFloorPath, options.sequentialFloorPath, options.sequentialFloorGTK4Path,
] where !FileManager.default.isExecutableFile(atPath: path) {
    FileHandle.standardError.write(Data("No baseline program at \(path): run Tests/Benchmarks/run.sh, which builds it.\n".utf8))
    exit(2)
}

// The page server runs on this (main) thread's GLib loop; the children are run from another thread.
MainActor.assumeIsolated {
    let server: PageServer
    do {
        server = try PageServer()
    } catch {
        FileHandle.standardError.write(Data("The page server could not start: \(error)\n".utf8))
        exit(1)
    }
    let port = server.port
    Thread {
        do {
            let report = try EmbeddedBenchmark(
                floor: options.floorPath, floorGTK4: options.floorGTK4Path, soupFloor: options.soupFloorPath, sequentialFloor: options.sequentialFloorPath,
                sequentialFloorGTK4: options.sequentialFloorGTK4Path,
                msalReceiver: options.msalReceiverPath,
                runs: options.runs, embeddedOnly: options.embeddedOnly, webauthnOnly: options.webauthnOnly, pagePort: port).run()
            print(options.wantsJSON ? report.json : report.table)
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(1)
        }
    }.start()
    g_main_loop_run(g_main_loop_new(nil, 0))
    withExtendedLifetime(server) {}
}
