internal import CGLib
import Foundation
import GLibSupport
import Synchronization
import WebviewHost

/// HTTP to the identity provider: JSON GETs and form POSTs, each bounded by a timeout, every
/// failure turned into a ``WebAuthError``.
///
/// The requests go through libsoup 3, the HTTP stack of the embedded WebKitGTK view, so they take
/// the view's route: GIO's default proxy resolver (`g_proxy_resolver_get_default()`: the desktop's
/// proxy settings, the environment's `http_proxy` variables, the ProxyResolver portal in Flatpak).
/// A desktop proxy's user name and password (in its URI) are taken out of it and answer the
/// proxy's first 407; no message names them.
/// Each request runs on a thread of its own (a `GLibWorkerThread` job: a `GMainContext` of its own
/// pushed as that thread's default), with a `SoupSession` made there: nothing depends on who runs the main loop (GTK's, or a
/// plain Swift program without one), and no libsoup object crosses threads.
struct ProviderConnection: Sendable {
    private let timeout: TimeInterval
    /// The app's proxy; `nil`: GIO's default resolver (the desktop's settings).
    private let proxy: NetworkProxy?
    /// The sandbox this process runs in (read once): a failure in one without network says so.
    private static let sandbox = WebviewEnvironment.current.sandbox

    init(timeout: TimeInterval, proxy: NetworkProxy? = nil) {
        self.timeout = timeout
        self.proxy = proxy
    }

    /// The status and body of a GET; throws `network` when the provider cannot be reached.
    func get(_ url: URL) async throws(WebAuthError) -> (status: Int, body: Data) {
        try await send(HTTPExchange.Request(method: "GET", url: url, headers: [("Accept", "application/json")], body: nil))
    }

    /// A GET with the access token as a bearer token (RFC 6750 2.1): the userinfo endpoint.
    func get(_ url: URL, bearer accessToken: String) async throws(WebAuthError) -> (status: Int, body: Data) {
        try await send(HTTPExchange.Request(
            method: "GET", url: url, headers: [("Accept", "application/json"), ("Authorization", "Bearer " + accessToken)], body: nil))
    }

    /// The status and body of an `application/x-www-form-urlencoded` POST.
    func postForm(_ url: URL, _ form: [(String, String)]) async throws(WebAuthError) -> (status: Int, body: Data) {
        try await send(HTTPExchange.Request(
            method: "POST", url: url, headers: [("Accept", "application/json")],
            body: (contentType: "application/x-www-form-urlencoded", data: Data(FormEncoding.encode(form).utf8))))
    }

    private func send(_ request: HTTPExchange.Request) async throws(WebAuthError) -> (status: Int, body: Data) {
        let url = request.url
        // The window a proxy's question goes over: the interactive call's parentWindow, if any.
        switch await HTTPExchange.run(request, timeout: timeout, proxy: proxy, questionWindow: ProxyAuthentication.questionWindow) {
        case .success(let answer):
            if answer.status == 407 {
                if answer.proxyRefusedPasswords {
                    throw WebAuthError(
                        .network,
                        "The proxy \(answer.proxy ?? "in use") refused the user name and password \(ProxyAuthentication.maximumAttempts) times; "
                            + "check them with your administrator, then sign in again.",
                        url: url)
                }
                throw WebAuthError(
                    .network,
                    "The proxy \(answer.proxy ?? "in use") asks for a user name and password to reach the sign-in server at \(url.host ?? "?") and was given none: "
                        + "the question was cancelled, or nobody could be asked (without the embedded provider's dialog, the app answers it through ProxyAuthentication.ask).",
                    url: url)
            }
            return (answer.status, answer.body)
        case .failure(let failure):
            let route = failure.proxy.map { " through the proxy \($0)" } ?? ""
            let what: String
            switch failure.kind {
            case .timedOut: what = "did not answer\(route) within \(Int(timeout)) seconds"
            case .cancelled: what = "could not be reached\(route): the request was cancelled"
            case .proxyFailed: what = "could not be reached: the proxy \(failure.proxy ?? "in use") refused or failed (\(failure.message))"
            case .other: what = "could not be reached\(route) (\(failure.message))"
            }
            if let sandbox = Self.sandbox, sandbox.sharesNetwork == false {
                // Nothing outside can be reached: say what the sandbox lacks, not "check the network".
                throw WebAuthError(
                    .network,
                    "The sign-in server at \(url.host ?? "?") \(what): this app runs in a Flatpak sandbox without network access. "
                        + "The app's manifest needs `--share=network` in finish-args "
                        + "(or `flatpak override --share=network \(sandbox.applicationID ?? "<app id>")` for this machine).",
                    url: url, underlyingError: failure)
            }
            let advice = failure.proxy == nil ? "check the network and try again." : "check that the proxy is running and reachable, or the desktop's proxy settings."
            throw WebAuthError(.network, "The sign-in server at \(url.host ?? "?") \(what); \(advice)", url: url, underlyingError: failure)
        }
    }
}

/// One HTTP request on libsoup 3, on a thread of its own (see ``ProviderConnection``).
enum HTTPExchange {
    struct Request: Sendable {
        let method: String
        let url: URL
        let headers: [(String, String)]
        let body: (contentType: String, data: Data)?
    }

    struct Answer: Sendable {
        let status: Int
        let body: Data
        /// The proxy the request went through (`http://host:port`), `nil` when direct.
        let proxy: String?
        /// The proxy refused ``ProxyAuthentication/maximumAttempts`` passwords.
        var proxyRefusedPasswords = false
    }

    struct Failure: Error, Sendable, CustomStringConvertible {
        enum Kind: Sendable { case timedOut, cancelled, proxyFailed, other }
        let kind: Kind
        let message: String
        /// The proxy the request was to go through, `nil` when direct.
        let proxy: String?
        var description: String { message }
    }

    /// Runs `request` within `timeout` seconds (the whole exchange); cancelling the task cancels it.
    /// `questionWindow`: what a proxy's question goes over (see ``ProxyAuthentication/questionWindow``).
    /// Who answers it is the calling task's (its registry scope's `ask`), read here: the question
    /// comes on the exchange's thread, in no task.
    static func run(
        _ request: Request, timeout: TimeInterval, proxy: NetworkProxy?, questionWindow: WindowHandle? = nil
    ) async -> Result<Answer, Failure> {
        let questions = ProxyAuthentication.questions
        let cancellation = Cancellation()
        return await withTaskCancellationHandler {
            cancellation.armDeadline(after: timeout)
            return await GLibWorkerThread.run(named: "SignIn HTTP") {
                let result = exchange(
                    request, timeout: timeout, proxy: proxy, questionWindow: questionWindow, questions: questions, cancellation: cancellation)
                cancellation.finish()
                return result
            }
        } onCancel: {
            cancellation.cancel(timedOut: false)
        }
    }

    /// The exchange itself, on the calling worker thread (whose own main context is its
    /// thread-default): a session made there, the request sent synchronously (`soup_session_send_and_read`).
    private static func exchange(
        _ request: Request, timeout: TimeInterval, proxy appProxy: NetworkProxy?, questionWindow: WindowHandle?,
        questions: ProxyAuthentication.Questions, cancellation: Cancellation
    ) -> Result<Answer, Failure> {
        let session = soup_session_new()!
        defer { g_object_unref(session) }
        soup_session_set_timeout(session, guint(max(1, timeout.rounded(.up))))
        let address = request.url.absoluteString
        let proxy: String?
        if let appProxy {
            let resolver = resolver(for: appProxy)
            soup_session_set_proxy_resolver(session, resolver)
            g_object_unref(UnsafeMutableRawPointer(resolver))
            proxy = proxyInUse(for: address, session: session)
        } else {
            // The desktop's proxy for this request, looked up once (GIO's resolver may run a PAC
            // script): named in messages without user info, and, when its URI carries a user name
            // and password (`http_proxy=http://user:password@proxy:3128`, GNOME's settings with
            // authentication), split: the credential answers the proxy's first 407
            // (``ProxyAuthentication/seed(_:for:)``), and this session, which makes one request,
            // gets the proxy without it (libsoup 3 cannot use a URI that carries it).
            let desktop = firstProxy(for: address, resolver: g_proxy_resolver_get_default()).map(ProxyURI.init)
            if let desktop, let credential = desktop.credential, let authority = desktop.authority {
                ProxyAuthentication.seed(credential, for: authority)
                let resolver = g_simple_proxy_resolver_new(desktop.uri, nil)!
                soup_session_set_proxy_resolver(session, resolver)
                g_object_unref(UnsafeMutableRawPointer(resolver))
            }
            proxy = desktop.map { ProxyURI.redacting($0.uri) }
        }
        guard let message = soup_message_new(request.method, address) else {
            return .failure(Failure(kind: .other, message: "the address \(address) is not a URL libsoup can request", proxy: proxy))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        let headers = soup_message_get_request_headers(message)
        for (name, value) in request.headers { soup_message_headers_replace(headers, name, value) }
        // A plain-http request goes to the proxy as it is (no tunnel): the Basic credential the
        // proxy accepted goes with it at once. Never on https, where headers reach the server.
        if request.url.scheme == "http", let proxy, let authority = URLComponents(string: proxy).map({ "\($0.host ?? ""):\($0.port ?? 80)" }),
            let credential = ProxyAuthentication.heldBasicCredential(for: authority)
        {
            let token = Data("\(credential.user):\(credential.password)".utf8).base64EncodedString()
            soup_message_headers_replace(headers, "Proxy-Authorization", "Basic " + token)
        }
        if let body = request.body {
            let bytes = body.data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            soup_message_set_request_body_from_bytes(message, body.contentType, bytes)
            g_bytes_unref(bytes)
        }
        let asker = ProxyAsker(cancellation: cancellation, window: questionWindow, questions: questions)
        let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, gboolean, gpointer?) -> gboolean = {
            _, auth, retrying, data in
            guard let auth, let data else { return 0 }
            return Unmanaged<ProxyAsker>.fromOpaque(data).takeUnretainedValue().authenticate(auth.assumingMemoryBound(to: SoupAuth.self), retrying: retrying != 0)
        }
        g_signal_connect_data(
            UnsafeMutableRawPointer(message), "authenticate", unsafeBitCast(handler, to: GCallback.self),
            Unmanaged.passUnretained(asker).toOpaque(), nil, GConnectFlags(rawValue: 0))
        var error: UnsafeMutablePointer<GError>?
        let bytes = withExtendedLifetime(asker) { soup_session_send_and_read(session, message, cancellation.cancellable, &error) }
        if let error {
            defer { g_error_free(error) }
            let text = String(cString: error.pointee.message)
            let domain = error.pointee.domain == g_io_error_quark()
            let code = error.pointee.code
            let kind: Failure.Kind =
                cancellation.timedOut || (domain && code == Int32(G_IO_ERROR_TIMED_OUT.rawValue)) ? .timedOut
                : domain && code == Int32(G_IO_ERROR_CANCELLED.rawValue) ? .cancelled
                : domain && proxy != nil && [G_IO_ERROR_PROXY_FAILED, G_IO_ERROR_PROXY_AUTH_FAILED, G_IO_ERROR_PROXY_NEED_AUTH,
                                             G_IO_ERROR_PROXY_NOT_ALLOWED, G_IO_ERROR_CONNECTION_REFUSED].map({ Int32($0.rawValue) }).contains(code)
                ? .proxyFailed : .other
            if let bytes { g_bytes_unref(bytes) }
            return .failure(Failure(kind: kind, message: ProxyURI.redacting(text), proxy: proxy))
        }
        var data = Data()
        if let bytes {
            var size: gsize = 0
            if let start = g_bytes_get_data(bytes, &size), size > 0 { data = Data(bytes: start, count: Int(size)) }
            g_bytes_unref(bytes)
        }
        var answer = Answer(status: Int(soup_message_get_status(message).rawValue), body: data, proxy: proxy)
        if answer.status == 407, let asked = asker.proxy { answer.proxyRefusedPasswords = ProxyAuthentication.refusedTooOften(asked) }
        return .success(answer)
    }

    /// The app's proxy as a `GSimpleProxyResolver` (its URL for every scheme, its bypassed hosts).
    static func resolver(for proxy: NetworkProxy) -> OpaquePointer {
        var hosts: [UnsafeMutablePointer<gchar>?] = proxy.bypassHosts.map { g_strdup($0) } + [nil]
        defer { hosts.forEach { g_free($0) } }
        return hosts.withUnsafeMutableBufferPointer { g_simple_proxy_resolver_new(proxy.url.absoluteString, $0.baseAddress)! }
    }

    /// The first proxy the session's resolver gives for `address`, without user info (named in
    /// messages), `nil` for a direct connection.
    static func proxyInUse(for address: String, session: UnsafeMutablePointer<SoupSession>?) -> String? {
        let resolver = session.flatMap { soup_session_get_proxy_resolver($0) } ?? g_proxy_resolver_get_default()
        return firstProxy(for: address, resolver: resolver).map(ProxyURI.redacting)
    }

    /// The first proxy `resolver` gives for `address` (`g_proxy_resolver_lookup`), as it gives it
    /// (user info included), `nil` for a direct connection or a failed lookup.
    private static func firstProxy(for address: String, resolver: OpaquePointer?) -> String? {
        guard let resolver else { return nil }
        var error: UnsafeMutablePointer<GError>?
        guard let proxies = g_proxy_resolver_lookup(resolver, address, nil, &error) else {
            if let error { g_error_free(error) }
            return nil
        }
        defer { g_strfreev(proxies) }
        guard let first = proxies[0] else { return nil }
        let proxy = String(cString: first)
        return proxy == "direct://" ? nil : proxy
    }
}

/// Answers a proxy's 407 for one exchange (libsoup's `authenticate` signal, on the exchange's
/// thread): the credential the view and every request share (``ProxyAuthentication``), asked on
/// the main actor while this thread waits.
private final class ProxyAsker: Sendable {
    private let asked = Mutex<String?>(nil)
    private let cancellation: Cancellation
    /// What the library's question goes over (the app's window), `nil` when none is known.
    private let window: WindowHandle?
    /// Who is asked: the app's `ask` of the request's task (its registry scope), else the
    /// library's dialog.
    private let questions: ProxyAuthentication.Questions

    init(cancellation: Cancellation, window: WindowHandle?, questions: ProxyAuthentication.Questions) {
        self.cancellation = cancellation
        self.window = window
        self.questions = questions
    }

    /// The proxy (`host:port`) that asked, if one did.
    var proxy: String? { asked.withLock { $0 } }

    func authenticate(_ auth: UnsafeMutablePointer<SoupAuth>, retrying: Bool) -> gboolean {
        guard soup_auth_is_for_proxy(auth) != 0, let authority = soup_auth_get_authority(auth) else { return 0 }
        let proxy = String(cString: authority)
        let realm = soup_auth_get_realm(auth).map { String(cString: $0) }
        let basic = soup_auth_get_scheme_name(auth).map { String(cString: $0).lowercased() == "basic" } ?? false
        asked.withLock { $0 = proxy }
        // Without a question to ask, the main actor is not needed (nor waited for: a program may
        // not be running it while this request waits).
        if !retrying, let held = ProxyAuthentication.heldCredential(for: proxy) {
            soup_auth_authenticate(auth, held.user, held.password)
            return 1
        }
        guard questions.canAsk else { return 0 }
        let answer = Answer()
        // The time limit is the server's, not the person's: it waits while they answer.
        cancellation.asking(true)
        defer { cancellation.asking(false) }
        Task { @MainActor [window, questions] in
            answer.set(await ProxyAuthentication.answer(
                proxy: proxy, realm: realm, basic: basic, retrying: retrying, over: window, questions: questions))
        }
        guard let credential = answer.wait() else { return 0 }
        soup_auth_authenticate(auth, credential.user, credential.password)
        return 1
    }

    /// The main actor's answer, handed to the waiting exchange thread.
    private final class Answer: Sendable {
        private let value = Mutex<ProxyCredential?>(nil)
        private let done = DispatchSemaphore(value: 0)
        func set(_ credential: ProxyCredential?) {
            value.withLock { $0 = credential }
            done.signal()
        }
        func wait() -> ProxyCredential? {
            done.wait()
            return value.withLock { $0 }
        }
    }
}

/// The `GCancellable` of one exchange, cancelled from any thread (`g_cancellable_cancel` is
/// thread-safe); remembers whether the deadline did it.
private final class Cancellation: Sendable {
    nonisolated(unsafe) let cancellable: UnsafeMutablePointer<GCancellable>
    private let deadlinePassed = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private let askingPerson = Atomic<Bool>(false)

    init() { cancellable = g_cancellable_new() }
    deinit { g_object_unref(cancellable) }

    var timedOut: Bool { deadlinePassed.load(ordering: .acquiring) }

    /// Cancels the exchange unless it has finished; `timedOut`: the deadline did it.
    func cancel(timedOut: Bool) {
        guard !finished.load(ordering: .acquiring) else { return }
        if timedOut { deadlinePassed.store(true, ordering: .releasing) }
        g_cancellable_cancel(cancellable)
    }

    /// Cancels the exchange `timeout` seconds from now; while the app is being asked a proxy's
    /// password then, it looks again `timeout` seconds later (the person's time is not the server's).
    func armDeadline(after timeout: TimeInterval) {
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
            if askingPerson.load(ordering: .acquiring) {
                armDeadline(after: timeout)
            } else {
                cancel(timedOut: true)
            }
        }
    }

    /// Whether the exchange waits for the app's answer to a proxy's question.
    func asking(_ waiting: Bool) { askingPerson.store(waiting, ordering: .releasing) }

    /// The exchange has its result: a later deadline or task cancellation does nothing.
    func finish() { finished.store(true, ordering: .releasing) }
}
