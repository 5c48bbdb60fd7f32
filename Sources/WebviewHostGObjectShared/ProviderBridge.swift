#if WEBKITGTK_6
public import CWebviewHostGObjectGTK4
#else
public import CWebviewHostGObjectGTK3
#endif
public import CGLib
import Foundation
import GLibSupport
import WebviewHost

// Providers written in any language: a `WvhWebviewProvider` (a GObject implementing the
// interface, in Python, GJS, Vala or C) registered as a `WebviewProvider`, its sessions reported
// back through `WvhProviderSession`. The host treats it as any other provider: the policy, the
// one-session slot, the timeout, the one outcome, dismiss before the caller resumes.

/// A `WvhWebviewProvider` object as a `WebviewProvider`. Unchecked: the object is used on the
/// main thread only.
final class GObjectWebviewProvider: WebviewProvider, @unchecked Sendable {
    let object: GObjectRef<OpaquePointer>
    let id: WebviewProviderID
    let displayName: String
    let kind: WebviewProviderKind
    let priority: Int
    let requiresDisplay: Bool

    init(object: OpaquePointer, id: String, displayName: String, kind: WebviewProviderKind, priority: Int, requiresDisplay: Bool) {
        self.object = GObjectRef(retaining: object)
        self.id = WebviewProviderID(id)
        self.displayName = displayName
        self.kind = kind
        self.priority = priority
        self.requiresDisplay = requiresDisplay
    }

    func availability(in environment: WebviewEnvironment) -> WebviewProviderAvailability {
        if requiresDisplay, !environment.hasDisplay { return .unavailable(reason: "\(displayName) needs a display.") }
        // The object's own answer, where it can be asked: on the main thread, where its language runs.
        guard Thread.isMainThread else { return .available }
        return MainActor.assumeIsolated {
            var reason: UnsafeMutablePointer<CChar>?
            let available = _wvh_webview_provider_is_available(object.pointer, &reason) != 0
            defer { g_free(reason) }
            if available { return .available }
            return .unavailable(reason: reason.map { String(cString: $0) } ?? "\(displayName) says it cannot run now.")
        }
    }

    @MainActor
    func makeSession(for request: WebAuthRequest, reporter: WebAuthSessionReporter) throws -> any WebviewProviderSession {
        GObjectProviderSession(provider: object, request: request, reporter: reporter)
    }
}

/// One session of a `WvhWebviewProvider`: a `WvhProviderSession` handed to its `start`, and its
/// `dismiss` called once at the end.
@MainActor
final class GObjectProviderSession: WebviewProviderSession {
    private let provider: GObjectRef<OpaquePointer>
    private let request: WebAuthRequest
    private let reporter: WebAuthSessionReporter
    private var session: GObjectRef<OpaquePointer>?
    private var dismissed = false

    init(provider: GObjectRef<OpaquePointer>, request: WebAuthRequest, reporter: WebAuthSessionReporter) {
        self.provider = provider
        self.request = request
        self.reporter = reporter
    }

    func prepare() async throws -> URL { request.redirectURI.url }

    func present(authorizationURL: URL) throws {
        let bridge = Unmanaged.passRetained(SessionReports(reporter)).toOpaque()
        guard let made = _wvh_provider_session_new(authorizationURL.absoluteString, request.redirectURI.url.absoluteString, bridge) else {
            Unmanaged<SessionReports>.fromOpaque(bridge).release()
            throw WebAuthError(.providerUnavailable, "The provider's session could not be made.")
        }
        let session = GObjectRef(adopting: made)
        self.session = session
        _wvh_webview_provider_start(provider.pointer, session.pointer)
    }

    func dismiss() {
        guard !dismissed, let session else { return }
        dismissed = true
        _wvh_webview_provider_dismiss(provider.pointer, session.pointer)
    }
}

/// What a `WvhProviderSession`'s calls reach: the session's reporter (thread-safe).
final class SessionReports: Sendable {
    let reporter: WebAuthSessionReporter
    init(_ reporter: WebAuthSessionReporter) { self.reporter = reporter }
}

@_cdecl("wvh_bridge_register_provider")
@MainActor public func wvh_bridge_register_provider(
    _ provider: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ displayName: UnsafePointer<CChar>?, _ kind: WvhProviderKind,
    _ priority: Int32, _ requiresDisplay: gboolean, _ errorPointer: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
) -> gboolean {
    MainActor.preconditionIsolated("WebviewHost's GObject calls are made on the main thread")
    ProcessSetup.once()
    guard let provider, let id = InteractiveCall.text(id), !id.isEmpty else {
        WebAuthError(.invalidParameters, "A provider needs a non-empty id.").set(on: errorPointer)
        return 0
    }
    let providerKind: WebviewProviderKind = switch kind {
    case WVH_PROVIDER_KIND_SYSTEM_BROWSER: .systemBrowser
    case WVH_PROVIDER_KIND_EMBEDDED_VIEW: .embeddedView
    default: .other
    }
    WebviewProviderRegistry.unregister(WebviewProviderID(id))
    WebviewProviderRegistry.register(GObjectWebviewProvider(
        object: provider, id: id, displayName: InteractiveCall.text(displayName) ?? id, kind: providerKind, priority: Int(priority),
        requiresDisplay: requiresDisplay != 0))
    return 1
}

@_cdecl("wvh_bridge_unregister_provider")
@MainActor public func wvh_bridge_unregister_provider(_ id: UnsafePointer<CChar>?) -> gboolean {
    guard let id = InteractiveCall.text(id) else { return 0 }
    return WebviewProviderRegistry.unregister(WebviewProviderID(id)) ? 1 : 0
}

@_cdecl("wvh_bridge_session_report")
public func wvh_bridge_session_report(
    _ bridge: UnsafeMutableRawPointer?, _ report: WvhBridgeReport, _ url: UnsafePointer<CChar>?, _ code: WvhError,
    _ message: UnsafePointer<CChar>?
) -> gboolean {
    guard let bridge else { return 0 }
    let reporter = Unmanaged<SessionReports>.fromOpaque(bridge).takeUnretainedValue().reporter
    let link = InteractiveCall.text(url).flatMap(URL.init(string:))
    switch report {
    case WVH_BRIDGE_REPORT_IS_FINISHED:
        return reporter.isFinished ? 1 : 0
    case WVH_BRIDGE_REPORT_DID_START_LOAD:
        if let link { reporter.didStartLoad(link) }
    case WVH_BRIDGE_REPORT_DID_FINISH_LOAD:
        if let link { reporter.didFinishLoad(link) }
    case WVH_BRIDGE_REPORT_COMPLETE:
        guard let text = InteractiveCall.text(url) else { return 0 }
        return reporter.handleRedirect(text) ? 1 : 0
    case WVH_BRIDGE_REPORT_FAIL:
        let errorCode = WebAuthError.gErrorCodes.first { $0.value == code }?.key ?? WebAuthError.Code("failed")
        reporter.fail(WebAuthError(errorCode, InteractiveCall.text(message) ?? ""))
    default:
        break
    }
    return 1
}

@_cdecl("wvh_bridge_session_free")
public func wvh_bridge_session_free(_ bridge: UnsafeMutableRawPointer?) {
    guard let bridge else { return }
    Unmanaged<SessionReports>.fromOpaque(bridge).release()
}
