import Foundation
import Synchronization
import WebviewHost

/// One sign-in run by ``ScriptedBrowserProvider``.
@MainActor
final class ScriptedBrowserSession: WebviewProviderSession {
    private let provider: ScriptedBrowserProvider
    private let request: WebAuthRequest
    private let reporter: WebAuthSessionReporter
    private let running = RunningScript()
    private var work: Task<Void, Never>?

    init(provider: ScriptedBrowserProvider, request: WebAuthRequest, reporter: WebAuthSessionReporter) {
        self.provider = provider
        self.request = request
        self.reporter = reporter
    }

    func prepare() async throws -> URL {
        var components = URLComponents(url: request.redirectURI.url, resolvingAgainstBaseURL: false)!
        components.port = provider.loopbackPort
        return components.url!
    }

    func present(authorizationURL: URL) throws {
        provider.log.append("authorize \(authorizationURL.absoluteString)")
        let provider = provider, reporter = reporter, running = running
        work = Task.detached {
            await Self.run(provider, authorizationURL, reporter, running)
        }
    }

    func dismiss() {
        work?.cancel()
        running.handle?.terminate()
        provider.log.append("dismissed")
    }

    private nonisolated static func run(
        _ provider: ScriptedBrowserProvider, _ authorizationURL: URL, _ reporter: WebAuthSessionReporter,
        _ running: RunningScript
    ) async {
        switch provider.behavior {
        case .hang:
            return
        case .replay(let code):
            let state = URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?
                .queryItems?.first { $0.name == "state" }?.value ?? ""
            var redirect = URLComponents(url: reporter.redirectURI!.url, resolvingAgainstBaseURL: false)!
            redirect.queryItems = [.init(name: "state", value: state), .init(name: "code", value: code)]
            provider.log.append("redirect \(redirect.url!.absoluteString)")
            reporter.handleRedirect(redirect.url!)
        case .signIn(let attempts, let allowConsent):
            for (index, credentials) in attempts.enumerated() {
                guard !reporter.isFinished, !Task.isCancelled else { return }
                var arguments = ["--print-only", "--timeout", String(provider.requestTimeout), "-u", credentials.username, "-p", credentials.password]
                if !allowConsent { arguments.append("--no-consent") }
                let output: ScriptRunner.Output
                do {
                    output = try await ScriptRunner.run(
                        "python3", [provider.script.path] + arguments + [authorizationURL.absoluteString],
                        timeout: 60, started: { running.handle = $0 })
                } catch {
                    reporter.fail(WebAuthError(.browserLaunchFailed, "python3 could not be started: \(error)"))
                    return
                }
                provider.log.append("attempt \(index + 1) as \(credentials.username): exit \(output.status) \(output.standardError)")
                if output.timedOut {
                    reporter.fail(WebAuthError(.timedOut, "The scripted browser did not finish within 60 seconds."))
                    return
                }
                let redirect = output.standardOutput.split(separator: "\n").last { $0.hasPrefix("REDIRECT_URL=") }
                    .flatMap { URL(string: String($0.dropFirst("REDIRECT_URL=".count))) }
                if let redirect {
                    provider.log.append("redirect \(redirect.absoluteString)")
                    if !reporter.handleRedirect(redirect) {
                        reporter.fail(WebAuthError(.invalidResponse, "The browser ended at \(redirect), which is not the redirect URI.", url: redirect))
                    }
                    return
                }
                let rejected = output.standardError.contains("wrong username or password")
                if rejected, index + 1 < attempts.count { continue }
                reporter.fail(WebAuthError(
                    .userCanceled,
                    "The person could not sign in and closed the window: \(output.standardError.trimmingCharacters(in: .whitespacesAndNewlines))"))
                return
            }
        }
    }
}

/// The browser program a session runs, so that dismissing the session can stop it.
final class RunningScript: Sendable {
    private let current = Mutex<ScriptRunner.Handle?>(nil)
    var handle: ScriptRunner.Handle? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
