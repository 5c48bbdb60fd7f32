import ExternalWebviewProvider
import Foundation
import ScenarioSupport
import Testing
import WebviewHost
import WebviewHostTestKit

/// The misbehaving and well-behaved test plugins.
let behaviourScript = Checkout.fixture("ExternalPlugins").appendingPathComponent("behaviour.py").path
/// A Python without pyenv's shim in front (its start-up costs more than a session).
let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"

let headless = WebviewEnvironment(variables: [:], hasDisplay: false)
let redirect = URL(string: "http://127.0.0.1:8080/callback")!

/// A temporary directory, removed when the value is.
final class TemporaryDirectory: Sendable {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("external-provider-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func subdirectory(_ name: String) throws -> URL {
        let directory = url.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// The limits test plugins get: a Python plugin's start on a loaded machine can take longer than
/// the 5 s handshake a person-facing default allows (the handshake timeout has tests of its own).
let testLimits = ExternalProvider.Limits(
    handshakeTimeout: Patience.scaled(.seconds(20)), dismissGrace: .milliseconds(500), inputReadTimeout: Patience.scaled(.seconds(20)))

/// The test plugin in `mode`, writing its process IDs into `pids` and the host's messages to `record`.
func behaviourProvider(
    _ mode: String, id: WebviewProviderID = "behaviour", pids: URL? = nil, grandchild: Bool = false,
    record: URL? = nil,
    limits: ExternalProvider.Limits = testLimits
) -> ExternalProvider {
    var arguments = [python, behaviourScript, mode]
    if grandchild { arguments.append("--grandchild") }
    if let pids { arguments += ["--pids", pids.path] }
    if let record { arguments += ["--record", record.path] }
    return ExternalProvider(
        descriptor: ProviderDescriptor(
            id: id, name: "Test plugin (\(mode))", arguments: arguments, requiresDisplay: false),
        limits: limits)
}

func authorization(_ mode: String, state: String = "s1") -> URL {
    URL(string: "https://idp.example.test/authorize?mode=\(mode)&state=\(state)")!
}

/// One session through `provider`, in an isolated registry; the outcome and the notifications.
@MainActor
func runSession(
    _ provider: any WebviewProvider, page: String = "ok", timeout: Duration? = nil,
    cancelAfter: Duration? = nil
) async -> (result: Result<WebAuthResponse, WebAuthError>, events: [String]) {
    await WebviewProviderRegistry.withIsolatedRegistry {
        WebviewProviderRegistry.register(provider)
        let session = WebAuthSession(
            redirectURI: redirect, parameters: WebviewParameters(webviewType: .provider(provider.id), timeout: timeout),
            environment: headless)
        let recorder = WebAuthEventRecorder(session: session)
        if let cancelAfter {
            Task.detached {
                try? await Task.sleep(for: cancelAfter)
                session.cancel()
            }
        }
        let result: Result<WebAuthResponse, WebAuthError>
        do throws(WebAuthError) {
            let prepared = try await session.prepare()
            let state = "s\(Int.random(in: 1...1_000_000))"
            _ = prepared
            let url = authorization(page, state: state)
            result = .success(try await session.start(authorizationURL: url, expectedState: state))
        } catch {
            result = .failure(error)
        }
        try? await Task.sleep(for: .milliseconds(50))
        return (result, recorder.shortNames)
    }
}

/// Waits up to `limit` for every process named in `pids` (files named after process IDs) to be
/// gone: killed and reaped (a zombie still has its /proc entry). Returns the ones still there.
func survivors(in pids: URL, within limit: Duration = Patience.scaled(.seconds(10))) async -> [String] {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while true {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pids.path)) ?? []
        let alive = names.filter { FileManager.default.fileExists(atPath: "/proc/\($0)") }
        if alive.isEmpty || clock.now >= deadline {
            return alive.map { pid in
                let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
                return "\(pid): \(stat.prefix(80))"
            }
        }
        try? await Task.sleep(for: .milliseconds(20))
    }
}

/// How many process IDs `pids` recorded.
func recordedCount(in pids: URL) -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: pids.path)) ?? []).count
}

func openDescriptorCount() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
}

/// This process's threads the library started for external providers (it names them
/// "wvh-ext-output" and "wvh-ext-input").
func externalProviderThreadCount() -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.filter { task in
        let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
        return name.hasPrefix("wvh-ext-")
    }.count
}

extension Result where Failure == WebAuthError {
    var error: WebAuthError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
