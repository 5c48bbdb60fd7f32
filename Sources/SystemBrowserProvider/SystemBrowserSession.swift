import CGLib
import Foundation
import GLibSupport
import WebviewHost

/// One sign-in in the person's browser: binds the loopback listener (or waits for the custom
/// scheme's hand-over), launches the browser, turns the callback into the session's outcome and
/// answers the browser with the completion page.
///
/// The browser is not handed the authorization URL but a first hop on the loopback listener,
/// `http://127.0.0.1:<port>/<random path>`, which answers 302 to the authorization URL. That hop
/// is how the session knows the browser really opened the link: `didStartLoad` and
/// `didFinishLoad` (with the authorization URL) are reported when the browser fetches it, not
/// when GIO says it started a program (a handler can start and exit at once without showing
/// anything). The hop's path is unguessable (128 random bits), works once, and is ignored after
/// the outcome. When the handler GIO started exits with a failure status (or is killed) before
/// the browser arrived, the session ends with `browserLaunchFailed` at once.
@MainActor
final class SystemBrowserSession: WebviewProviderSession {
    private let request: WebAuthRequest
    private let reporter: WebAuthSessionReporter
    private let launch: BrowserLaunch
    private var listener: LoopbackRedirectListener?
    /// The listener for the first hop only, when the redirect is a custom scheme (no listener of its own).
    private var firstHopListener: LoopbackRedirectListener?
    private var redirectURI: URL
    private var dismissed = false
    /// The first hop's path: `/` and 32 random hex digits.
    private let startPath: String
    private var authorizationURL: URL?
    /// Whether the browser fetched the first hop.
    private var browserArrived = false

    init(request: WebAuthRequest, reporter: WebAuthSessionReporter) {
        self.request = request
        self.reporter = reporter
        // Made in the task that starts the session: its toolkit (a test's isolated one) is kept.
        launch = BrowserLaunch(toolkit: ToolkitIntegration.current)
        redirectURI = request.redirectURI.url
        var generator = SystemRandomNumberGenerator()
        startPath = "/" + (0..<4).map { _ in
            let value = generator.next() as UInt32
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }

    /// Binds the loopback listener; returns the redirect URI with the bound port when the
    /// requested one named none or port 0. A custom-scheme redirect URI is returned unchanged.
    func prepare() async throws -> URL {
        if dismissed { throw WebAuthError.canceled() }
        // A custom scheme needs no listener: the app hands the redirect to the host (WebAuthSession.handleOpenURL).
        guard request.redirectURI.isLoopback else { return redirectURI }
        if let sandbox = request.environment.sandbox, sandbox.sharesNetwork == false {
            // The sandbox's loopback is its own: the person's browser, outside, could never reach
            // a listener here, and the sign-in would wait for its timeout. Say so before any page.
            throw WebAuthError(
                .redirectListenerFailed,
                "This app runs in a Flatpak sandbox without network access, so the browser could never return the sign-in to it "
                    + "at \(redirectURI.absoluteString). The app's manifest needs `--share=network` in finish-args "
                    + "(or `flatpak override --share=network \(sandbox.applicationID ?? "<app id>")` for this machine).",
                url: redirectURI)
        }
        guard var components = URLComponents(url: redirectURI, resolvingAgainstBaseURL: true),
            let host = components.percentEncodedHost
        else {
            throw WebAuthError(.invalidParameters, "The redirect URI \"\(redirectURI)\" has no host.", url: redirectURI)
        }
        let listener = try LoopbackRedirectListener(host: host, port: components.port ?? 0)
        listener.onRequest = { [weak self] request in
            self?.answer(request) ?? .builtIn(status: 410, .alreadyEnded)
        }
        let callbackPath = components.percentEncodedPath
        listener.callbackPath = callbackPath.isEmpty ? "/" : callbackPath
        listener.onMalformedRequest = { [reporter] in
            // libsoup answered 400 before the request reached us: the callback cannot be read, so
            // end the session now rather than at its timeout.
            reporter.fail(WebAuthError(
                .invalidResponse,
                "The browser's request to the sign-in callback was malformed (its address could not be read); it was not accepted."))
        }
        self.listener = listener
        // No port, or port 0 ("any"): the browser must be sent to the port the kernel chose.
        if components.port == nil || components.port == 0 {
            components.port = listener.port
            redirectURI = components.url ?? redirectURI
        }
        return redirectURI
    }

    func present(authorizationURL: URL) throws {
        self.authorizationURL = authorizationURL
        let hop: LoopbackRedirectListener
        if let listener {
            hop = listener
        } else {
            hop = try LoopbackRedirectListener(host: "127.0.0.1", port: 0)
            hop.onRequest = { [weak self] request in
                self?.answer(request) ?? .builtIn(status: 410, .alreadyEnded)
            }
            firstHopListener = hop
        }
        let startURL = URL(string: "http://\(hop.host):\(hop.port)\(startPath)")!
        try launch.open(
            startURL, parentWindow: request.parameters.parentWindow,
            sandboxed: request.environment.isSandboxed,
            completion: { [reporter] error in
                guard let error else { return }
                reporter.fail(
                    WebAuthError(
                        .browserLaunchFailed,
                        "Your web browser could not be started to show the sign-in page (\(error.message)). "
                            + "Check that a default web browser is set in your desktop's settings, then try again.",
                        url: authorizationURL, underlyingError: error))
            },
            onExit: { [weak self] status in self?.browserExited(waitStatus: status) })
    }

    /// The handler GIO started ended: a failure before the browser opened the first hop ends the
    /// session. Exit status 0 does not (many browsers hand the URL to a running instance and exit).
    private func browserExited(waitStatus: Int32) {
        guard !dismissed, !reporter.isFinished, !browserArrived else { return }
        let how: String
        if wvh_wait_exited(waitStatus) != 0 {
            let code = wvh_wait_exit_status(waitStatus)
            guard code != 0 else { return }
            how = "exited with status \(code)"
        } else if wvh_wait_signaled(waitStatus) != 0 {
            how = "was killed by signal \(wvh_wait_term_signal(waitStatus))"
        } else {
            return
        }
        reporter.fail(
            WebAuthError(
                .browserLaunchFailed,
                "Your web browser \(how) before it opened the sign-in page. Check that your default web browser "
                    + "starts (or choose another one in your desktop's settings), then try again.",
                url: authorizationURL))
    }

    func dismiss() {
        dismissed = true
        listener?.close()
        listener = nil
        firstHopListener?.close()
        firstHopListener = nil
        launch.cancel()
    }

    /// The listener's answer to one request: only the redirect path, by GET or form POST, ends
    /// the session; anything else is 404 (or 405/415) and changes nothing.
    private func answer(_ received: LoopbackRedirectListener.Request) -> LoopbackRedirectListener.Answer {
        if dismissed || reporter.isFinished {
            return .builtIn(status: 410, .alreadyEnded)
        }
        if received.path == startPath, received.method == "GET", !browserArrived, let authorizationURL {
            browserArrived = true
            reporter.didStartLoad(authorizationURL)
            reporter.didFinishLoad(authorizationURL)
            return .found(authorizationURL)
        }
        // The first-hop-only listener of a custom-scheme sign-in serves nothing else.
        guard request.redirectURI.isLoopback else {
            return .builtIn(status: 404, .notFound)
        }
        let expectedPath = URLComponents(url: redirectURI, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? "/"
        guard received.path == (expectedPath.isEmpty ? "/" : expectedPath) else {
            return .builtIn(status: 404, .notFound)
        }
        guard received.method == "GET" || received.method == "POST" else {
            return .builtIn(status: 405, .notFound)
        }
        guard let parameters = received.formEncodedParameters ?? (received.method == "GET" ? "" : nil) else {
            return .builtIn(status: 415, .notFound)
        }
        var text = redirectURI.absoluteString
        if let query = text.firstIndex(of: "?") { text = String(text[..<query]) }
        if !parameters.isEmpty { text += "?" + parameters }
        guard URL(string: text) != nil else {
            let error = WebAuthError(
                .invalidResponse, "The sign-in callback could not be read; it was not accepted.", url: redirectURI)
            reporter.fail(error)
            return completion(for: error)
        }
        // The text as received: the host refuses malformed percent-encoding instead of re-encoding it.
        guard reporter.handleRedirect(text) else {
            return .builtIn(status: 404, .notFound)
        }
        return completion(for: reporter.failure)
    }

    private func completion(for failure: WebAuthError?) -> LoopbackRedirectListener.Answer {
        switch (request.parameters.browserCompletion, failure) {
        case (.defaultPage, nil): .builtIn(status: 200, .success)
        case (.defaultPage, let failure?): .builtIn(status: 200, .failure(failure))
        case (.signedOutPage, nil): .builtIn(status: 200, .signedOut)
        case (.signedOutPage, let failure?): .builtIn(status: 200, .signOutFailure(failure))
        case (.html(let success, _), nil): .page(status: 200, html: success)
        case (.html(_, let failurePage), _?): .page(status: 200, html: failurePage)
        case (.redirect(let success, _), nil): .redirect(success)
        case (.redirect(_, let failurePage), _?): .redirect(failurePage)
        }
    }
}
