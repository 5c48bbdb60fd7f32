#if WEBKITGTK_6
public import CWebviewHostGObjectGTK4
#else
public import CWebviewHostGObjectGTK3
#endif
public import CGLib
import Foundation
import GLibSupport
import SignIn
import WebviewHost

// The lower level for the GObject layer: a `WvhWebAuthSession` is a `WebAuthSession` (any
// authorization URL, no OAuth: the URL reached at the redirect URI is returned, an OAuth `error`
// in it included), started with `prepare()` then `start(authorizationURL:)`, its signals from the
// session's own `observeSteps(_:)`.

/// One `WvhWebAuthSession`'s `WebAuthSession`, and the page it opens.
final class BridgedWebAuthSession {
    let session: WebAuthSession
    let authorizationURL: URL
    init(_ session: WebAuthSession, authorizationURL: URL) {
        self.session = session
        self.authorizationURL = authorizationURL
    }
}

@_cdecl("wvh_bridge_web_auth_session_new")
@MainActor public func wvh_bridge_web_auth_session_new(
    _ authorizationURL: UnsafePointer<CChar>?, _ redirectURI: UnsafePointer<CChar>?, _ values: UnsafePointer<WvhBridgeInteractive>?,
    _ errorPointer: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
) -> UnsafeMutableRawPointer? {
    MainActor.preconditionIsolated("WebviewHost's GObject calls are made on the main thread")
    ProcessSetup.once()
    do throws(WebAuthError) {
        guard let pageText = InteractiveCall.text(authorizationURL), let redirectText = InteractiveCall.text(redirectURI) else {
            throw WebAuthError(.invalidParameters, "authorization-url and redirect-uri must both be set.")
        }
        guard let page = URL(string: pageText) else {
            throw WebAuthError(.invalidParameters, "The authorization URL \"\(pageText)\" is not a URL.")
        }
        guard let redirect = URL(string: redirectText) else {
            throw WebAuthError(.invalidParameters, "The redirect URI \"\(redirectText)\" is not a URL.")
        }
        // The webview settings only (the `selection-policy` among them): scopes, login hint and
        // prompt are OAuth's.
        let webview = values.map { InteractiveCall.parameters(from: $0.pointee).webviewParameters } ?? WebviewParameters()
        let session = WebAuthSession(redirectURI: redirect, parameters: webview, returningOAuthErrors: ())
        return Unmanaged.passRetained(BridgedWebAuthSession(session, authorizationURL: page)).toOpaque()
    } catch {
        error.set(on: errorPointer)
        return nil
    }
}

@_cdecl("wvh_bridge_web_auth_session_free")
public func wvh_bridge_web_auth_session_free(_ bridge: UnsafeMutableRawPointer?) {
    guard let bridge else { return }
    Unmanaged<BridgedWebAuthSession>.fromOpaque(bridge).release()
}

@_cdecl("wvh_bridge_web_auth_session_cancel")
public func wvh_bridge_web_auth_session_cancel(_ bridge: UnsafeMutableRawPointer?) {
    guard let bridge else { return }
    Unmanaged<BridgedWebAuthSession>.fromOpaque(bridge).takeUnretainedValue().session.cancel()
}

@_cdecl("wvh_bridge_web_auth_session_start")
@MainActor public func wvh_bridge_web_auth_session_start(
    _ bridge: UnsafeMutableRawPointer?, _ emitter: OpaquePointer?, _ cancellable: UnsafeMutablePointer<GCancellable>?,
    _ done: WvhBridgeDone?, _ data: gpointer?
) {
    MainActor.preconditionIsolated("WebviewHost's GObject calls are made on the main thread")
    guard let bridge, let done else { return }
    let bridged = Unmanaged<BridgedWebAuthSession>.fromOpaque(bridge).takeUnretainedValue()
    let session = bridged.session, url = bridged.authorizationURL
    let signals = emitter.map { CallSignals(session: $0) }
    let observation = signals.map { signals in session.observeSteps { step in signals.emit(step) } }
    let call = CompletedCall(done: done, data: data, cancellable: cancellable, signals: signals)
    let task = Task { @MainActor in
        defer { observation?.invalidate() }
        do throws(WebAuthError) {
            _ = try await session.prepare()
            call.succeed(try await session.start(authorizationURL: url).callbackURL)
        } catch {
            call.fail(error)
        }
    }
    call.cancelWith(task)
}
