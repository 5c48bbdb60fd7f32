import Foundation
import WebviewHost

/// The plugin's messages, one line at a time: the flood limit, parsing, the answer `prepare()`
/// waits for, the reports while presenting, and the redirect URI `prepared` may name.
extension ExternalProviderSession {
    /// One line of the plugin's output (without its newline), read while the session listens.
    func handle(line: ArraySlice<UInt8>) {
        let clock = ContinuousClock.now
        if clock - window.start >= .seconds(1) {
            window = (clock, 0)
        }
        window.count += 1
        if window.count > provider.limits.maxMessagesPerSecond {
            endWithError(
                WebAuthError(
                    .externalProviderProtocol,
                    "\(name) wrote more than \(provider.limits.maxMessagesPerSecond) messages in one second."))
            return
        }
        let trimmed = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        if trimmed.isEmpty { return }
        let message: PluginMessage
        do {
            message = try PluginMessage.parse(trimmed)
        } catch {
            endWithError(WebAuthError(.externalProviderProtocol, "\(name) wrote \(error.reason) on its standard output."))
            return
        }
        // After the outcome nothing it says matters (late answers are ignored, not errors).
        if reporter.isFinished, waiter == nil { return }

        if case .fail(let code, let text) = message {
            endWithError(WebAuthError(WebAuthError.Code(code), PluginMessage.oneLine(text, limit: PluginMessage.maxFailMessageLength)))
            return
        }
        if let waiter {
            guard waiter.type == message.type else {
                endWithError(
                    WebAuthError(
                        .externalProviderProtocol, "\(name) sent \(message.type) where the protocol expects \(waiter.type)."))
                return
            }
            resumeWaiter(with: .success(message))
            return
        }
        guard phase == .presenting else {
            endWithError(
                WebAuthError(.externalProviderProtocol, "\(name) sent \(message.type) before the host asked it to present the page."))
            return
        }
        switch message {
        case .didStartLoad(let url): reporter.didStartLoad(url)
        case .didFinishLoad(let url): reporter.didFinishLoad(url)
        case .redirect(let text):
            if !reporter.handleRedirect(text) {
                endWithError(
                    WebAuthError(
                        .externalProviderProtocol,
                        "\(name) reported a redirect that is not this session's redirect URI (\(redirectURI?.description ?? "none"))."))
            }
        case .switchToBroker(let url):
            if !reporter.switchToBroker(url) { send(.brokerUnavailable(url)) }
        case .handOverToSystemBrowser(let handOver):
            // The browser takes over (then the host dismisses this plugin), or the session ends
            // with systemBrowserRequired (the policy is never, no builder, no browser): either
            // way the plugin's next message from the host is dismiss.
            if !reporter.handOverToSystemBrowser(handOver), !reporter.isFinished {
                // Nothing moved and nothing ended (this provider is itself a system browser):
                // end rather than leave the plugin waiting for a browser that never comes.
                endWithError(.systemBrowserRequired(handOver, why: "\(name) cannot hand a sign-in to another browser."))
            }
        case .hello, .prepared, .fail:
            endWithError(WebAuthError(.externalProviderProtocol, "\(name) sent \(message.type) again while presenting."))
        }
    }

    /// The redirect URI `prepared` named, if the app may use it: the requested one, or for a
    /// loopback redirect the same URI on another port (RFC 8252 7.3). Anything else could send
    /// the code to a place the app never registered.
    func acceptedRedirectURI(_ text: String) throws(WebAuthError) -> RedirectURI {
        let requested = request.redirectURI
        guard let url = URL(string: text), let redirect = try? RedirectURI(url) else {
            throw WebAuthError(.externalProviderProtocol, "\(name) prepared a redirect URI that is not a valid URI.")
        }
        if redirect.matches(requested.url) { return redirect }
        if requested.isLoopback, redirect.isLoopback,
            var moved = URLComponents(url: requested.url, resolvingAgainstBaseURL: false),
            let port = URLComponents(url: url, resolvingAgainstBaseURL: false)?.port
        {
            moved.port = port
            if let movedURL = moved.url, redirect.matches(movedURL) { return redirect }
        }
        throw WebAuthError(
            .externalProviderProtocol,
            "\(name) prepared the redirect URI \(redirect), which is not \(requested) (only a loopback port may change).")
    }
}
