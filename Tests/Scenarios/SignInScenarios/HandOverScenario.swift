import Foundation
import GLibSupport
import ScenarioSupport
import SignIn
import WebviewHost

#if canImport(Glibc)
    import Glibc
#endif

/// `acquireToken` that starts in the library's embedded window against Glewlwyd and is handed
/// over, inside the same await, to the person's browser (the desktop's default: Chromium in the
/// tests). What starts the hand-over:
/// - `refusal`: an app-added ``EmbeddedAgentRefusal`` matching Glewlwyd's login page title,
///   a stand-in for a provider that refuses embedded agents (the page watch finds it by itself);
/// - `app`: the app calls ``WebAuthSession/continueInSystemBrowser()`` from
///   ``WebAuthSession/observeAll(_:)`` once the view's first page finished loading; this case also
///   sets ``WebviewParameters/systemBrowserRedirectURI`` (another registered loopback URI).
///
/// `replay` mode: when the browser reaches the first hop (its `didStartLoad`, so its loopback
/// listener is up), the scenario itself sends `GET <browser redirect>?code=x&state=<the embedded
/// request's state>` to the listener, before the browser can sign in: the session must refuse it.
@MainActor
final class HandOverScenario {
    enum Trigger: String { case refusal, app }

    let clientID: String
    let trigger: Trigger
    let replay: Bool
    let embeddedRedirect = URL(string: "http://127.0.0.1:23685/embedded-callback")!
    /// The browser's redirect in the `app` case (the `refusal` case uses the session's own).
    let browserRedirect = URL(string: "http://127.0.0.1:23683/callback")!

    private var events: [String] = []
    private var providerKinds: [String] = []
    private var handedOver = false
    private var appAsked = false
    private var replayTask: Task<String, Never>?
    private var firstAuthorizationURL: URL?
    private var browserAuthorizationURL: URL?

    init(arguments: [String]) {
        clientID = arguments.first ?? "webviewhost-tests"
        trigger = Trigger(rawValue: arguments.dropFirst().first ?? "refusal") ?? .refusal
        replay = arguments.dropFirst(2).first == "replay"
    }

    func run() async -> ScenarioReport {
        var facts = ScenarioReport()
        let observation = WebAuthSession.observeAll { [weak self] session, event in
            self?.observe(session, event)
        }
        var parameters = WebviewParameters(
            webviewType: .embedded, timeout: .seconds(90), systemBrowserHandOver: .automatic,
            embeddedAgentRefusals: EmbeddedAgentRefusal.known + [
                EmbeddedAgentRefusal(name: "Glewlwyd (stand-in for a provider refusing embedded agents)",
                                     pageTextContains: ["Glewlwyd login"])
            ])
        if trigger == .app {
            parameters.embeddedAgentRefusals = EmbeddedAgentRefusal.known
            parameters.systemBrowserRedirectURI = browserRedirect
        }
        do throws(WebAuthError) {
            let app = try PublicClientApplication(configuration: .init(
                clientID: clientID, authority: issuer, redirectURI: embeddedRedirect,
                tokenCacheStorage: InMemoryTokenCacheStorage()))
            let result = try await app.acquireToken(with: InteractiveTokenParameters(scopes: scopes, webviewParameters: parameters))
            facts[.outcome] = "success"
            facts[.name] = result.account.name ?? ""
            facts[.username] = result.account.username ?? ""
            facts[.subject] = result.account.subject
            facts[.issuer] = result.account.issuer
            facts[.idTokenSubject] = result.idTokenClaims.subject
            facts[.idTokenAudience] = result.idTokenClaims.audience
            facts[.idTokenNonce] = result.idTokenClaims.nonce ?? ""
            facts[.scopes] = result.scopes
            facts[.hasRefreshToken] = result.refreshToken != nil
            facts[.accessTokenLength] = result.accessToken.count
        } catch {
            facts[.outcome] = "\(error.code)"
            facts[.message] = error.message
        }
        observation.invalidate()
        facts[.events] = events
        facts[.providerKinds] = providerKinds
        if let replayTask { facts[.replayAnswer] = await replayTask.value }
        for (url, keys) in [(firstAuthorizationURL, AuthorizationKeys.first), (browserAuthorizationURL, .browser)] {
            guard let url else { continue }
            facts[keys.url] = url.absoluteString
            let query = Self.query(url)
            facts[keys.state] = query["state"] ?? ""
            facts[keys.nonce] = query["nonce"] ?? ""
            facts[keys.codeChallenge] = query["code_challenge"] ?? ""
            facts[keys.redirectURI] = query["redirect_uri"] ?? ""
        }
        return facts
    }

    private func observe(_ session: WebAuthSession, _ event: WebAuthEvent) {
        events.append("\(event)")
        switch event {
        case .didStartLoad(let url):
            if !handedOver {
                if firstAuthorizationURL == nil, Self.query(url)["state"] != nil { firstAuthorizationURL = url }
            } else if browserAuthorizationURL == nil {
                browserAuthorizationURL = url
                // The browser fetched the first hop: its listener is up. Deliver the view's state to it.
                if replay, let state = firstAuthorizationURL.flatMap({ Self.query($0)["state"] }) {
                    let redirect = trigger == .app ? browserRedirect : embeddedRedirect
                    let path = redirect.path + "?code=x&state=" + (state.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? state)
                    let port = UInt16(redirect.port ?? 80)
                    replayTask = Task.detached { Self.get(path: path, port: port) }
                }
            }
        case .didFinishLoad:
            if trigger == .app, !handedOver, !appAsked {
                appAsked = true
                let moved = session.continueInSystemBrowser()
                events.append("continueInSystemBrowser() -> \(moved)")
            }
        case .willSwitchToSystemBrowser:
            handedOver = true
        default:
            break
        }
    }

    static func query(_ url: URL) -> [String: String] {
        var values: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            values[item.name] = item.value
        }
        return values
    }

    /// One HTTP/1.0 GET to 127.0.0.1:`port`: "<status line> | <page title>", or what went wrong.
    nonisolated static func get(path: String, port: UInt16) -> String {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return "socket failed: errno \(errno)" }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { return "connect failed: errno \(errno)" }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return "send failed: errno \(errno)" }
            sent += n
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        let text = String(decoding: answer, as: UTF8.self)
        let statusLine = String(text.prefix { $0 != "\r" && $0 != "\n" })
        let title = text.range(of: "<title>").flatMap { start in
            text.range(of: "</title>", range: start.upperBound..<text.endIndex).map { String(text[start.upperBound..<$0.lowerBound]) }
        }
        return statusLine + " | " + (title ?? "no title")
    }
}

/// The report keys for what one authorization request asked (the embedded view's first, the browser's).
private struct AuthorizationKeys {
    let url, state, nonce, codeChallenge, redirectURI: ReportKey<String>

    static let first = Self(
        url: .firstAuthorizationURL, state: .firstState, nonce: .firstNonce, codeChallenge: .firstCodeChallenge,
        redirectURI: .firstRedirectURI)
    static let browser = Self(
        url: .browserAuthorizationURL, state: .browserState, nonce: .browserNonce, codeChallenge: .browserCodeChallenge,
        redirectURI: .browserRedirectURI)
}
