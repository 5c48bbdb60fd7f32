#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import SecurityKeys
import WebviewHost

/// The Web Authentication API in the sign-in view, answered with the person's security keys.
///
/// Two user scripts, in the top frame only (a cross-origin frame gets no API, which the README
/// says): ``WebAuthnScripts/page`` in the page's world defines `PublicKeyCredential` and
/// `navigator.credentials`, and turns each call into a DOM event carrying a JSON string;
/// ``WebAuthnScripts/relay``, in a script world of the library's own that page scripts cannot
/// reach, adds the frame's origin as that world sees it and whether the call came with a user
/// gesture (`navigator.userActivation`), and posts it on a message channel registered in that
/// world only. Nothing the page says about where it is counts: the origin must also be the one of
/// the page the view shows (``RelyingPartyCheck``), and the `rpId` a registrable suffix of it.
///
/// One ceremony at a time; each has a deadline (the page's `timeout`, clamped to 10 s – 10 min,
/// 5 min when it names none); a new page in the view, the page's `AbortSignal` and ``stop()``
/// cancel it (CTAPHID_CANCEL reaches the key). Every call gets an answer: the credential, or a
/// `DOMException` name and message (`NotAllowedError`, `InvalidStateError`, `SecurityError`,
/// `NotSupportedError`, `AbortError`).
@MainActor
final class WebAuthnBridge {
    /// The message channel's name and the script world it lives in.
    static let channel = "webviewhostWebAuthn"
    static let world = "webviewhost-webauthn"

    private let view: WebKitDifferences.WebView
    private let manager: GObjectRef<WebKitDifferences.ContentManager>
    private var scripts: [OpaquePointer] = []
    private let connections = SignalConnections()
    private var registered = false
    private let prompt: @MainActor (_ cancelled: @escaping @MainActor () -> Void) -> SecurityKeyQuestions
    private let ceremony: SecurityKeyCeremony
    /// The ceremony running now: the page's id for it, its task and the person's questions.
    private var running: (id: String, task: Task<Void, Never>, questions: SecurityKeyQuestions)?

    /// Starts answering WebAuthn in the pages `view` loads from now on. `prompt` makes the
    /// person's prompt for one ceremony (the library's questions over the window); it calls
    /// `cancelled` when the person cancels there (the page then gets `NotAllowedError`).
    init(
        view: WebKitDifferences.WebView, ceremony: SecurityKeyCeremony = SecurityKeyCeremony(timeout: .seconds(300)),
        prompt: @escaping @MainActor (_ cancelled: @escaping @MainActor () -> Void) -> SecurityKeyQuestions
    ) {
        self.view = view
        self.prompt = prompt
        self.ceremony = ceremony
        manager = GObjectRef(retaining: WebKitDifferences.contentManager(of: view))
        registered = WebKitDifferences.registerMessagesWithReply(manager.pointer, name: Self.channel, world: Self.world)
        connections.connect(
            manager, "script-message-with-reply-received::\(Self.channel)",
            .twoPointersReturningBool { [weak self] (value: WebKitDifferences.JSValue?, reply: OpaquePointer?) in
                guard let self, let value, let reply else { return false }
                self.received(value, reply: reply)
                return true
            })
        // A new page: what the last one asked for is moot (its promise is gone with it).
        connections.connect(view, "load-changed", .enumValue { [weak self] event in
            if event == WEBKIT_LOAD_COMMITTED.rawValue { self?.cancelRunning() }
        })
        let page = webkit_user_script_new(
            WebAuthnScripts.page, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, nil, nil)!
        let relay = webkit_user_script_new_for_world(
            WebAuthnScripts.relay, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, Self.world,
            nil, nil)!
        for script in [page, relay] {
            webkit_user_content_manager_add_script(manager.pointer, script)
            scripts.append(script)
        }
    }

    /// Cancels the running ceremony and takes the scripts and the channel out of the view's
    /// content manager. Calling it again does nothing.
    func stop() {
        guard !scripts.isEmpty || registered else { return }
        cancelRunning()
        connections.disconnectAll()
        for script in scripts {
            webkit_user_content_manager_remove_script(manager.pointer, script)
            webkit_user_script_unref(script)
        }
        scripts = []
        if registered { WebKitDifferences.unregisterMessages(manager.pointer, name: Self.channel, world: Self.world) }
        registered = false
    }

    /// The questions go first (nothing more shows), then CTAPHID_CANCEL reaches the key.
    private func cancelRunning() {
        running?.questions.dismiss()
        running?.task.cancel()
        running = nil
    }

    // MARK: Messages

    private func received(_ value: WebKitDifferences.JSValue, reply: OpaquePointer) {
        let answer = Reply(reply, context: jsc_value_get_context(value))
        guard let text = jsc_value_to_string(value) else { return answer.fail("TypeError", "The request was not a string.") }
        defer { g_free(text) }
        let message = String(cString: text)
        guard let data = message.data(using: .utf8),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let id = object["id"] as? String, let kind = object["kind"] as? String
        else { return answer.fail("TypeError", "The request could not be read.") }
        // The page the view shows, as the library knows it; the relay's view of it must agree.
        guard let uri = webkit_web_view_get_uri(view).map({ String(cString: $0) }), let url = URL(string: uri),
            let origin = RelyingPartyCheck.secureOrigin(of: url)
        else { return answer.fail("SecurityError", "This page is not a secure context.") }
        guard object["origin"] as? String == origin else {
            return answer.fail("SecurityError", "The request's origin is not the page's.")
        }
        switch kind {
        case "abort":
            if running?.id == id { cancelRunning() }
            answer.succeed(["ok": true])
        case "create", "get":
            // One ceremony at a time (a second call, or a forged event reusing a pending id), as Chrome.
            guard running == nil else { return answer.fail("NotAllowedError", "A request is already pending.") }
            guard let options = object["options"] as? [String: Any] else { return answer.fail("TypeError", "The options could not be read.") }
            do throws(WebAuthnRequest.Failure) {
                // The options and the rpId first (a SecurityError whatever the gesture), as browsers.
                let request = try WebAuthnRequest(kind: kind, options: options, origin: origin)
                // The person must have interacted with the page (sticky activation, as the relay's
                // world sees it): a page that asks its server between the click and `create` (as
                // Glewlwyd's does) has lost the transient activation by then on a loaded machine.
                let interacted = object["userActivation"] as? Bool == true || object["stickyActivation"] as? Bool == true
                if kind == "create", !interacted {
                    return answer.fail("NotAllowedError", "Creating a credential needs a user gesture (a click or a key press on the page).")
                }
                start(request, id: id, answer: answer)
            } catch {
                answer.fail(error.name, error.message)
            }
        default:
            answer.fail("NotSupportedError", "Unknown request.")
        }
    }

    private func start(_ request: WebAuthnRequest, id: String, answer: Reply) {
        var ceremony = self.ceremony
        if let timeout = request.timeout { ceremony.timeout = timeout }
        let personCancelled = Flag()
        let prompt = self.prompt { [weak self] in
            personCancelled.isSet = true
            if let self, self.running?.id == id { self.cancelRunning() }
        }
        let task = Task { @MainActor [weak self] in
            let result: Result<[String: Any], WebAuthnRequest.Failure>
            do throws(SecurityKeyError) {
                switch request.operation {
                case .create(let creation):
                    let made = try await ceremony.makeCredential(creation, prompt: prompt)
                    result = .success(request.credential(made))
                case .get(let assertion):
                    let signed = try await ceremony.getAssertion(assertion, prompt: prompt)
                    result = .success(request.credential(signed))
                }
            } catch {
                result = .failure(
                    personCancelled.isSet ? .init("NotAllowedError", "The operation either timed out or was not allowed.")
                        : Task.isCancelled ? .init("AbortError", "The request was aborted.") : .init(securityKeyError: error))
            }
            if let self, self.running?.id == id { self.running = nil }
            switch result {
            case .success(let credential): answer.succeed(["ok": true, "credential": credential])
            case .failure(let failure): answer.fail(failure.name, failure.message)
            }
        }
        running = (id, task, prompt)
    }
}

/// Whether the person cancelled a ceremony at its prompt.
@MainActor
private final class Flag {
    var isSet = false
}

/// One reply to the relay (`webkit_script_message_reply_return_value`), given at most once.
@MainActor
private final class Reply {
    private var reply: OpaquePointer?
    private let context: GObjectRef<WebKitDifferences.JSContext>?

    init(_ reply: OpaquePointer, context: WebKitDifferences.JSContext?) {
        self.reply = webkit_script_message_reply_ref(reply)
        self.context = context.map { GObjectRef(retaining: $0) }
    }

    isolated deinit {
        // Never answered (the view went first): the page's promise rejects.
        if let reply {
            webkit_script_message_reply_return_error_message(reply, "The request ended without an answer.")
            webkit_script_message_reply_unref(reply)
        }
    }

    func succeed(_ object: [String: Any]) {
        guard let reply, let context else { return }
        self.reply = nil
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{\"ok\":false}".utf8)
        let text = String(decoding: data, as: UTF8.self)
        let value = jsc_value_new_string(context.pointer, text)
        webkit_script_message_reply_return_value(reply, value)
        if let value { g_object_unref(UnsafeMutableRawPointer(value)) }
        webkit_script_message_reply_unref(reply)
    }

    func fail(_ name: String, _ message: String) {
        succeed(["ok": false, "error": ["name": name, "message": message]])
    }
}
