import Foundation
import ScenarioSupport
import WebviewHost

/// The web user agent of the `sign-in` command: `Tests/Fixtures/Glewlwyd/browser_signin.py`, a scripted
/// HTTP browser that signs alice in and prints where the server redirected it. A real
/// ``WebviewProvider`` registered through the registry, like SignInTests' scripted browser.
struct ScriptedSignInProvider: WebviewProvider {
    let id: WebviewProviderID = "scripted-browser"
    let displayName = "Scripted HTTP browser (token cache scenarios)"
    let kind = WebviewProviderKind.other
    let requiresDisplay = false
    let defaultTimeout: Duration? = .seconds(90)

    let script: String
    let username: String
    let password: String
    /// The loopback port the Glewlwyd client registers (its prepare phase "binds" it).
    let loopbackPort: Int

    func availability(in environment: WebviewEnvironment) -> WebviewProviderAvailability {
        FileManager.default.isReadableFile(atPath: script) ? .available : .unavailable(reason: "\(script) is missing")
    }

    @MainActor
    func makeSession(for request: WebAuthRequest, reporter: WebAuthSessionReporter) throws -> any WebviewProviderSession {
        ScriptedSignInSession(provider: self, request: request, reporter: reporter)
    }
}

@MainActor
final class ScriptedSignInSession: WebviewProviderSession {
    private let provider: ScriptedSignInProvider
    private let request: WebAuthRequest
    private let reporter: WebAuthSessionReporter

    init(provider: ScriptedSignInProvider, request: WebAuthRequest, reporter: WebAuthSessionReporter) {
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
        let provider = provider, reporter = reporter
        Task.detached {
            let arguments = [
                "python3", provider.script, "--print-only", "--timeout", "30", "-u", provider.username, "-p", provider.password,
                authorizationURL.absoluteString,
            ]
            do {
                let child = try CleanSpawn(arguments, environment: ProcessInfo.processInfo.environment)
                async let output = Task.detached { child.output!.readDataToEndOfFile() }.value
                async let errors = Task.detached { child.errors!.readDataToEndOfFile() }.value
                let (text, log) = await (String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
                let status = child.waitForExit()
                let redirect = text.split(separator: "\n").last { $0.hasPrefix("REDIRECT_URL=") }
                    .flatMap { URL(string: String($0.dropFirst("REDIRECT_URL=".count))) }
                if let redirect, reporter.handleRedirect(redirect) { return }
                reporter.fail(WebAuthError(.userCanceled, "The scripted browser did not sign in (exit \(status)): \(log)"))
            } catch {
                reporter.fail(WebAuthError(.browserLaunchFailed, "python3 could not be started: \(error)"))
            }
        }
    }

    func dismiss() {}
}
