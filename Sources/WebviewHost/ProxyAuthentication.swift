import Foundation
import Synchronization

/// A user name and password for a proxy that asks for one (HTTP 407). Kept in memory for the
/// app's run only, never written anywhere; its description hides the password.
public struct ProxyCredential: Sendable, Hashable, CustomStringConvertible {
    public let user: String
    public let password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    public var description: String { "user \(user) (password hidden)" }
}

/// A proxy asking for a user name and password: what ``ProxyAuthentication/ask`` is told.
public struct ProxyChallenge: Sendable, Hashable {
    /// The proxy, as `host:port`.
    public let proxy: String
    /// The realm the proxy names, if any.
    public let realm: String?
    /// 1 for the first question; 2 and 3 after the proxy refused the previous answer.
    public let attempt: Int
}

/// Proxies that ask for a password (407): one credential per proxy, asked once, shared by the
/// embedded view's pages and `SignIn`'s requests, held in memory for the app's run.
///
/// Who is asked: the app, when it set ``ask`` (once, before the first sign-in: its own dialog or
/// settings; a setting of the registry's store, so a test's
/// ``WebviewProviderRegistry/withIsolatedRegistry(isolation:_:)`` has its own); else the library's own dialog (user name and password, over the sign-in window or
/// the app's `parentWindow`), which the embedded provider (GTK) installs when it is made, so an
/// app that registers the built-in providers has it; else nobody (the proxy refuses the request).
/// After ``maximumAttempts`` refused answers the request fails (`SignIn`: `network`, saying so)
/// and the next one asks afresh. A user name and password in the desktop's proxy URI
/// (`http_proxy=http://user:password@proxy:3128`, GNOME's settings with authentication) are the
/// proxy's first answer, without a question; the person is asked only if the proxy refuses them.
public enum ProxyAuthentication {
    /// What the app answers a proxy's question with, on the main actor; `nil` cancels.
    public typealias Ask = @MainActor @Sendable (ProxyChallenge) async -> ProxyCredential?

    /// The library's own question (the embedded provider's dialog), asked when the app set no
    /// ``ask``: the challenge and the window to put the question over (`nil`: none known).
    package typealias LibraryQuestion = @MainActor @Sendable (ProxyChallenge, WindowHandle?) async -> ProxyCredential?

    /// The app's window for the questions of the requests made in this task (`SignIn`'s
    /// interactive calls set the `parentWindow` of their parameters): what the library's dialog is
    /// over when no sign-in window is there yet (discovery).
    @TaskLocal package static var questionWindow: WindowHandle?

    /// How many answers a proxy may refuse before the request fails.
    public static let maximumAttempts = 3

    private struct State {
        var libraryQuestion: LibraryQuestion?
        /// The credential each proxy (`host:port`) accepted or was last given.
        var held: [String: ProxyCredential] = [:]
        /// Answers each proxy refused since its last question was settled.
        var refused: [String: Int] = [:]
        /// The proxies that asked with the Basic scheme.
        var basic: Set<String> = []
        /// The question being asked, per proxy: a second request waits for it instead of asking again.
        var asking: [String: Task<ProxyCredential?, Never>] = [:]
        /// The credential each proxy's URI carried (``seed(_:for:)``), last seen.
        var seeded: [String: ProxyCredential] = [:]
    }

    private static let state = Mutex(State())

    /// ``ask``, per registry scope: an isolated registry starts with the enclosing scope's.
    private static let askSetting = ScopedSetting<Ask?> { nil }

    /// The app's answer to a proxy's question; `nil` (the default): the library's own dialog asks
    /// the person when an embedded provider was made (a GTK app), else nobody is asked and the
    /// request goes on without a password (the proxy refuses it).
    ///
    /// Kept in ``WebviewProviderRegistry``'s store: set outside any isolated registry, it is the
    /// process's; set inside ``WebviewProviderRegistry/withIsolatedRegistry(isolation:_:)``, that
    /// scope's only (the scope starts with the enclosing one's). A sign-in window's session takes
    /// the value of the task that starts it; GLib callbacks that run in no task see the process's.
    public static var ask: Ask? {
        get { askSetting.value }
        set { askSetting.value = newValue }
    }

    /// Who answers a proxy's question: the app's ``ask`` (of one registry scope) and the
    /// library's dialog. A session takes the current task's when it is made (``questions``), for
    /// the callbacks it runs in no task.
    package struct Questions: Sendable {
        package let ask: Ask?
        package let libraryQuestion: LibraryQuestion?

        /// Whether a proxy's question reaches anyone.
        package var canAsk: Bool { ask != nil || libraryQuestion != nil }
    }

    /// The current task's ``Questions``: its scope's ``ask``, and the library's dialog.
    package static var questions: Questions {
        let ask = askSetting.value
        return Questions(ask: ask, libraryQuestion: state.withLock { $0.libraryQuestion })
    }

    /// The library's own question, asked when the app set no ``ask``: the embedded provider
    /// installs its dialog here. The app's ``ask`` always comes first.
    package static var libraryQuestion: LibraryQuestion? {
        get { state.withLock { $0.libraryQuestion } }
        set { state.withLock { $0.libraryQuestion = newValue } }
    }

    /// Whether a proxy's question reaches anyone: the app's ``ask`` (the current task's) or the
    /// library's dialog.
    package static var canAsk: Bool { questions.canAsk }

    /// Runs `operation` with `window` as ``questionWindow`` for the requests it makes.
    nonisolated(nonsending)
    package static func asking<Value>(
        over window: WindowHandle?, _ operation: () async throws(WebAuthError) -> Value
    ) async throws(WebAuthError) -> Value {
        let outcome: Result<Value, WebAuthError> = await $questionWindow.withValue(window) {
            do throws(WebAuthError) {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// Forgets every credential held (for example when the person signs out of the network).
    public static func forgetCredentials() {
        state.withLock {
            $0.held = [:]
            $0.refused = [:]
            $0.seeded = [:]
        }
    }

    /// The user name and password `proxy`'s URI carried (`http://user:password@host:port` in
    /// `http_proxy`, or the desktop's settings): held for `proxy` so that its first 407 is
    /// answered without a question, the first time this credential is seen (or when it changed).
    /// A proxy that refuses it is asked about as usual, and the same URI does not put it back.
    package static func seed(_ credential: ProxyCredential, for proxy: String) {
        state.withLock { state in
            guard state.seeded[proxy] != credential else { return }
            state.seeded[proxy] = credential
            if state.asking[proxy] == nil {
                state.held[proxy] = credential
                state.refused[proxy] = nil
            }
        }
    }

    /// What a request answers `proxy`'s 407 with: the credential held, or the app's answer (the
    /// library's dialog, over `window`, when the app set no ``ask``). `retrying`: the proxy refused
    /// the credential given to this request. `questions`: who is asked (default: the current
    /// task's). `nil`: no answer (nobody to ask, the question was cancelled, or ``maximumAttempts``
    /// refused: see ``refusedTooOften(_:)``).
    @MainActor
    package static func answer(
        proxy: String, realm: String?, basic: Bool, retrying: Bool, over window: WindowHandle? = nil, questions: Questions? = nil
    ) async -> ProxyCredential? {
        let questions = questions ?? Self.questions
        let pending: Task<ProxyCredential?, Never>? = state.withLock { state in
            if basic { state.basic.insert(proxy) } else { state.basic.remove(proxy) }
            if let asking = state.asking[proxy] { return asking }
            if retrying {
                state.held[proxy] = nil
                state.refused[proxy, default: 0] += 1
                if state.refused[proxy, default: 0] >= maximumAttempts { return nil }
            } else if state.held[proxy] != nil {
                return nil
            }
            let challenge = ProxyChallenge(proxy: proxy, realm: realm, attempt: state.refused[proxy, default: 0] + 1)
            let task: Task<ProxyCredential?, Never>
            if let ask = questions.ask {
                task = Task { @MainActor in await ask(challenge) }
            } else if let library = questions.libraryQuestion {
                task = Task { @MainActor in await library(challenge, window) }
            } else {
                return nil
            }
            state.asking[proxy] = task
            return task
        }
        guard let pending else { return state.withLock { $0.held[proxy] } }
        let credential = await pending.value
        state.withLock { state in
            if state.asking[proxy] == pending {
                state.asking[proxy] = nil
                state.held[proxy] = credential
            }
        }
        return credential
    }

    /// The credential held for `proxy`, read on any thread: a request answers with it without
    /// waiting for the main actor.
    package static func heldCredential(for proxy: String) -> ProxyCredential? {
        state.withLock { $0.asking[proxy] == nil ? $0.held[proxy] : nil }
    }

    /// The credential held for `proxy` when it asks with the Basic scheme: a request can send it
    /// at once (`Proxy-Authorization`) instead of after a 407, which some proxies answer by closing
    /// the connection before a POST's body is sent.
    package static func heldBasicCredential(for proxy: String) -> ProxyCredential? {
        state.withLock { $0.basic.contains(proxy) ? $0.held[proxy] : nil }
    }

    /// `proxy` refused the credential held in a way no request can answer again (a proxy that says
    /// 401 instead of 407 to a wrong password): the credential is dropped, and the next request asks afresh.
    package static func refusedForGood(_ proxy: String) {
        state.withLock { state in
            guard state.asking[proxy] == nil else { return }
            state.held[proxy] = nil
            state.refused[proxy] = nil
        }
    }

    /// Whether `proxy` refused ``maximumAttempts`` answers; reading it settles the question, so
    /// the next request asks afresh.
    package static func refusedTooOften(_ proxy: String) -> Bool {
        state.withLock { state in
            guard state.refused[proxy, default: 0] >= maximumAttempts else { return false }
            state.refused[proxy] = nil
            return true
        }
    }
}
