#if WEBKITGTK_6
import CWebKitGTK4
import CWebviewHostGObjectGTK4
#else
import CWebKitGTK3
import CWebviewHostGObjectGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import SignIn
import WebviewHost

/// The Swift values of a `WvhInteractiveParameters`.
enum InteractiveCall {
    /// The call's parameters, its `selection-policy` among them (as its webview parameters' own
    /// `selectionPolicy`: the host asks it for this call only).
    @MainActor
    static func parameters(from values: WvhBridgeInteractive) -> InteractiveTokenParameters {
        var webview = WebviewParameters()
        switch values.webview_type {
        case WVH_WEBVIEW_TYPE_AUTHENTICATION_SESSION: webview.webviewType = .authenticationSession
        case WVH_WEBVIEW_TYPE_EMBEDDED: webview.webviewType = .embedded
        default: webview.webviewType = .default
        }
        if let provider = text(values.provider_id) { webview.webviewType = .provider(WebviewProviderID(provider)) }
        if let parent = values.parent_window { webview.parentWindow = WindowHandle(address: UnsafeMutableRawPointer(parent)) }
        if let view = values.custom_webview { webview.customWebview = WebviewHandle(address: UnsafeMutableRawPointer(view)) }
        if let title = text(values.window_title) { webview.windowTitle = title }
        if values.window_width > 0 { webview.windowSize.width = Int(values.window_width) }
        if values.window_height > 0 { webview.windowSize.height = Int(values.window_height) }
        if values.timeout_seconds > 0 { webview.timeout = .milliseconds(Int64(values.timeout_seconds * 1000)) }
        webview.prefersEphemeralWebBrowserSession = values.ephemeral != 0
        webview.securityKeys = values.security_keys != 0
        webview.securityKeysInCustomWebview = values.security_keys_in_custom_webview != 0
        webview.selectionPolicy = GObjectSelectionPolicy(values)
        return InteractiveTokenParameters(
            scopes: StringArray.copy(values.scopes), webviewParameters: webview, prompt: text(values.prompt).map(Prompt.init(rawValue:)),
            loginHint: text(values.login_hint))
    }

    static func text(_ value: UnsafePointer<CChar>?) -> String? {
        value.map { String(cString: $0) }
    }
}

/// One async call's end: the C callback called exactly once with a `WvhAuthenticationResult`
/// or a `GError`, and the app's `GCancellable` cancelling the Swift task meanwhile.
@MainActor
final class CompletedCall {
    private let done: WvhBridgeDone
    private let data: gpointer?
    private let cancellable: GObjectRef<UnsafeMutablePointer<GCancellable>>?
    /// The signals of the call, when it has any: `did-fail` for a failure no step reported.
    private let signals: CallSignals?
    private var handler: gulong = 0
    private var finished = false

    init(done: WvhBridgeDone, data: gpointer?, cancellable: UnsafeMutablePointer<GCancellable>?, signals: CallSignals? = nil) {
        self.done = done
        self.data = data
        self.cancellable = cancellable.map { GObjectRef(retaining: $0) }
        self.signals = signals
    }

    /// Cancels `task` when the app's cancellable is cancelled (at once if it already is).
    func cancelWith(_ task: Task<Void, Never>) {
        guard let cancellable, !finished else { return }
        let cancel: @Sendable () -> Void = { task.cancel() }
        handler = g_cancellable_connect(
            cancellable.pointer,
            unsafeBitCast(
                { (_: UnsafeMutablePointer<GCancellable>?, data: gpointer?) in
                    UserData<@Sendable () -> Void>.borrow(data)()
                } as @convention(c) (UnsafeMutablePointer<GCancellable>?, gpointer?) -> Void, to: GCallback.self),
            UserData.retained(cancel), UserData<@Sendable () -> Void>.destroyNotify)
    }

    /// Ends with a `WvhAuthenticationResult`.
    func succeed(_ result: AuthenticationResult) {
        let made = withCStrings(result.scopes) { scopes in
            let object = Self.account(result.account)
            defer { g_object_unref(UnsafeMutableRawPointer(object)) }
            return _wvh_authentication_result_new(
                result.accessToken, result.idToken, gint64(result.expiresOn.timeIntervalSince1970), scopes, object,
                result.refreshToken != nil ? 1 : 0)
        }
        finish(result: made.map { UnsafeMutableRawPointer($0) }, error: nil)
    }

    /// Ends with a `GPtrArray` of `WvhAccount`.
    func succeed(_ accounts: [Account]) {
        let array = _wvh_account_array_new()
        for account in accounts { g_ptr_array_add(array, UnsafeMutableRawPointer(Self.account(account))) }
        finish(result: array.map { UnsafeMutableRawPointer($0) }, error: nil)
    }

    /// Ends with a boolean.
    func succeed(_ value: Bool) {
        finish(result: UnsafeMutableRawPointer(bitPattern: value ? 1 : 0), error: nil)
    }

    /// Ends with a URL, as a string (transfer full).
    func succeed(_ url: URL) {
        finish(result: UnsafeMutableRawPointer(g_strdup(url.absoluteString)), error: nil)
    }

    /// A new `WvhAccount` (transfer full).
    static func account(_ account: Account) -> OpaquePointer? {
        _wvh_account_new(account.identifier, account.username, account.name, account.subject, account.issuer)
    }

    func fail(_ error: WebAuthError) {
        if !finished { signals?.callFailed(error) }
        if let cancellable, g_cancellable_is_cancelled(cancellable.pointer) != 0 {
            // GIO's convention for a call whose cancellable was cancelled.
            var cancelled: UnsafeMutablePointer<GError>?
            _ = g_cancellable_set_error_if_cancelled(cancellable.pointer, &cancelled)
            finish(result: nil, error: cancelled)
            return
        }
        finish(result: nil, error: error.gError())
    }

    private func finish(result: UnsafeMutableRawPointer?, error: UnsafeMutablePointer<GError>?) {
        guard !finished else { return }
        finished = true
        if let cancellable, handler != 0 { g_cancellable_disconnect(cancellable.pointer, handler) }
        _wvh_bridge_call_done(done, data, result, error)
    }
}

/// Calls `body` with `strings` as a `NULL`-terminated array of C strings.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let array = copies.map { UnsafePointer<CChar>($0) } + [nil]
    return array.withUnsafeBufferPointer { body($0.baseAddress!) }
}

extension WebAuthError {
    /// The `WVH_ERROR` code of each `WebAuthError.Code` (one per code; a code this version does
    /// not name is `WVH_ERROR_FAILED`).
    static let gErrorCodes: [WebAuthError.Code: WvhError] = [
        .userCanceled: WVH_ERROR_USER_CANCELED, .canceled: WVH_ERROR_CANCELED,
        .sessionAlreadyInProgress: WVH_ERROR_SESSION_ALREADY_IN_PROGRESS, .providerUnavailable: WVH_ERROR_PROVIDER_UNAVAILABLE,
        .invalidParameters: WVH_ERROR_INVALID_PARAMETERS, .network: WVH_ERROR_NETWORK, .tls: WVH_ERROR_TLS,
        .webProcessTerminated: WVH_ERROR_WEB_PROCESS_TERMINATED, .browserLaunchFailed: WVH_ERROR_BROWSER_LAUNCH_FAILED,
        .timedOut: WVH_ERROR_TIMED_OUT, .redirectListenerFailed: WVH_ERROR_REDIRECT_LISTENER_FAILED, .server: WVH_ERROR_SERVER,
        .stateMismatch: WVH_ERROR_STATE_MISMATCH, .invalidResponse: WVH_ERROR_INVALID_RESPONSE,
        .interactionRequired: WVH_ERROR_INTERACTION_REQUIRED, .unsupportedResponseMode: WVH_ERROR_UNSUPPORTED_RESPONSE_MODE,
        .systemBrowserRequired: WVH_ERROR_SYSTEM_BROWSER_REQUIRED, .consentRequired: WVH_ERROR_CONSENT_REQUIRED,
        .brokerUnavailable: WVH_ERROR_BROKER_UNAVAILABLE, .protocolMismatch: WVH_ERROR_PROTOCOL_MISMATCH,
        .deviceCodeExpired: WVH_ERROR_DEVICE_CODE_EXPIRED, .deviceCodeDenied: WVH_ERROR_DEVICE_CODE_DENIED,
        .deviceCodeBlocked: WVH_ERROR_DEVICE_CODE_BLOCKED,
        .integratedAuthenticationUnavailable: WVH_ERROR_INTEGRATED_AUTHENTICATION_UNAVAILABLE,
        .clientCertificateRequired: WVH_ERROR_CLIENT_CERTIFICATE_REQUIRED,
    ]

    /// A new `GError` of `WVH_ERROR` (transfer full): the message, and the provider's `error`
    /// and `error_description` when it sent them.
    func gError() -> UnsafeMutablePointer<GError> {
        var text = message
        if let server = serverError {
            let described = server.errorDescription.map { "\(server.error): \($0)" } ?? server.error
            if !text.contains(server.error) { text += " (the provider said \(described))" }
        }
        let code = Self.gErrorCodes[code] ?? WVH_ERROR_FAILED
        return g_error_new_literal(wvh_error_quark(), gint(code.rawValue), text)
    }

    /// Sets `pointer` (a `GError **`) to this error, when it is not `NULL`.
    func set(on pointer: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) {
        pointer?.pointee = gError()
    }
}

/// One call's signals, emitted on the object that started it (a `WvhPublicClientApplication` or
/// a `WvhWebAuthSession`) from that call's own steps only (`onStep`, `observeSteps`): never
/// another call's, never another application's. A call that fails before any session sent its
/// terminal step (discovery, the token store, another sign-in running) emits `did-fail` too, so
/// that every failed call says so once.
@MainActor
final class CallSignals {
    enum Emitter {
        case application(GObjectRef<OpaquePointer>)
        case session(GObjectRef<OpaquePointer>)
    }

    private let emitter: Emitter
    private var ended = false

    init(application: OpaquePointer) { emitter = .application(GObjectRef(retaining: application)) }
    init(session: OpaquePointer) { emitter = .session(GObjectRef(retaining: session)) }

    /// The C event of each step: every kind of `WebAuthEvent` has one (a new kind does not
    /// compile until it is given one here and a signal in wvh-call-signals.c).
    static func bridgeEvent(_ kind: WebAuthEvent.Kind) -> WvhBridgeEvent {
        switch kind {
        case .didStartLoad: WVH_BRIDGE_EVENT_DID_START_LOAD
        case .didFinishLoad: WVH_BRIDGE_EVENT_DID_FINISH_LOAD
        case .didFail: WVH_BRIDGE_EVENT_DID_FAIL
        case .didComplete: WVH_BRIDGE_EVENT_DID_COMPLETE
        case .willSwitchToBrokerApp: WVH_BRIDGE_EVENT_WILL_SWITCH_TO_BROKER_APP
        case .willSwitchToSystemBrowser: WVH_BRIDGE_EVENT_WILL_SWITCH_TO_SYSTEM_BROWSER
        }
    }

    /// The signal of one of the call's steps, with its URL and view.
    func emit(_ step: WebAuthStep) {
        let event = step.event
        let url: String?
        var failure: WebAuthError?
        switch event {
        case .didStartLoad(let page), .didFinishLoad(let page), .willSwitchToBrokerApp(let page), .didComplete(let page):
            url = page.absoluteString
        case .willSwitchToSystemBrowser(let handOver): url = handOver.pageURL?.absoluteString
        case .didFail(let error):
            url = nil
            failure = error
        }
        if event.isTerminal { ended = true }
        emit(Self.bridgeEvent(event.kind), url: url, view: step.webview?.address, error: failure)
    }

    /// `did-fail` for a call that ends with `error` before any of its sessions sent a terminal step.
    func callFailed(_ error: WebAuthError) {
        guard !ended else { return }
        ended = true
        emit(WVH_BRIDGE_EVENT_DID_FAIL, url: nil, view: nil, error: error)
    }

    /// `device-code`, with the challenge.
    func emit(_ challenge: DeviceCodeChallenge) {
        guard case .application(let application) = emitter else { return }
        let object = _wvh_device_code_challenge_new(
            challenge.userCode, challenge.verificationURI.absoluteString, challenge.verificationURIComplete?.absoluteString,
            gint64(challenge.expiresOn.timeIntervalSince1970), challenge.message, challenge.instructions)
        defer { g_object_unref(UnsafeMutableRawPointer(object)) }
        _wvh_public_client_application_emit(application.pointer, WVH_BRIDGE_EVENT_DEVICE_CODE, nil, nil, nil, object)
    }

    private func emit(_ event: WvhBridgeEvent, url: String?, view: UnsafeMutableRawPointer?, error: WebAuthError?) {
        let gError = error?.gError()
        defer { if let gError { g_error_free(gError) } }
        switch emitter {
        case .application(let application): _wvh_public_client_application_emit(application.pointer, event, url, view, gError, nil)
        case .session(let session): _wvh_web_auth_session_emit(session.pointer, event, url, view, gError)
        }
    }
}
