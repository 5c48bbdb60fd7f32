#if WEBKITGTK_6
import BuiltInWebviewProvidersGTK4
import EmbeddedWebviewProviderGTK4
public import CWebKitGTK4
public import CWebviewHostGObjectGTK4
#else
import BuiltInWebviewProvidersGTK3
import EmbeddedWebviewProviderGTK3
public import CWebKitGTK3
public import CWebviewHostGObjectGTK3
#endif
public import CGLib
import Foundation
import GLibSupport
import SignIn
import WebviewHost

// The Swift side of libwebviewhost-gtk3 and -gtk4 (compiled into WebviewHostGObjectGTK3 and
// WebviewHostGObjectGTK4, this folder being their Shared): the `wvh_bridge_*` functions the
// GObject types (Sources/CWebviewHostGObjectShared) call. Each one calls the public Swift API and nothing else:
// no behaviour is written twice. Everything runs on the main thread (the GObject types are
// called there, and the Swift API's main-actor work runs there through MainLoopBridge).

/// One `WvhPublicClientApplication`'s `PublicClientApplication`.
final class BridgedApplication {
    let application: PublicClientApplication
    init(_ application: PublicClientApplication) { self.application = application }
}

/// What the library sets up once per process, on the first application or session: the bridge
/// between Swift's main actor and the app's GLib main loop, and the built-in providers (the
/// person's browser and the embedded view), as a Swift app does at start. A lazily made constant,
/// not a flag the layer keeps: the process's registry is the app's, which its Swift code shares.
@MainActor
enum ProcessSetup {
    private static let done: Void = {
        MainLoopBridge.install()
        WebviewProviderRegistry.registerBuiltInProviders()
    }()
    static func once() {
        done
    }
}

@_cdecl("wvh_bridge_application_new")
@MainActor public func wvh_bridge_application_new(
    _ clientID: UnsafePointer<CChar>?, _ authority: UnsafePointer<CChar>?, _ redirectURI: UnsafePointer<CChar>?,
    _ tokenCache: UnsafePointer<CChar>?, _ networkProxy: UnsafePointer<CChar>?, _ errorPointer: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
) -> UnsafeMutableRawPointer? {
    MainActor.preconditionIsolated("WebviewHost's GObject calls are made on the main thread")
    do {
        ProcessSetup.once()
        do throws(WebAuthError) {
            guard let clientID, let authority, let redirectURI else {
                throw WebAuthError(.invalidParameters, "client-id, authority and redirect-uri must all be set.")
            }
            let authorityText = String(cString: authority), redirectText = String(cString: redirectURI)
            guard let authorityURL = URL(string: authorityText) else {
                throw WebAuthError(.invalidParameters, "The authority \"\(authorityText)\" is not a URL.")
            }
            guard let redirectURL = URL(string: redirectText) else {
                throw WebAuthError(.invalidParameters, "The redirect URI \"\(redirectText)\" is not a URL.")
            }
            var configuration = PublicClientApplicationConfiguration(
                clientID: String(cString: clientID), authority: authorityURL, redirectURI: redirectURL,
                tokenCacheStorage: try tokenCacheStorage(InteractiveCall.text(tokenCache)))
            if let proxy = InteractiveCall.text(networkProxy) { configuration.networkProxy = try NetworkProxy(proxy) }
            let application = try PublicClientApplication(configuration: configuration)
            return Unmanaged.passRetained(BridgedApplication(application)).toOpaque()
        } catch {
            error.set(on: errorPointer)
            return nil
        }
    }
}

/// The store `token-cache` names: `nil` or `secret-service` (the default store), `memory`, `file:PATH`.
@MainActor
func tokenCacheStorage(_ name: String?) throws(WebAuthError) -> (any TokenCacheStorage)? {
    switch name {
    case nil, "secret-service": return nil
    case "memory": return InMemoryTokenCacheStorage()
    case let name? where name.hasPrefix("file:") && name.count > 5:
        return FileTokenCacheStorage(fileURL: URL(fileURLWithPath: String(name.dropFirst(5))))
    case let name?:
        throw WebAuthError(.invalidParameters, "token-cache \"\(name)\" is none of secret-service, memory, file:PATH.")
    }
}

/// `wvh_use_desktop_proxy`: ``EmbeddedWebviewProvider/useDesktopProxy(in:)`` for the app's view.
@_cdecl("wvh_bridge_use_desktop_proxy")
@MainActor public func wvh_bridge_use_desktop_proxy(_ webView: UnsafeMutableRawPointer?) -> gboolean {
    MainActor.preconditionIsolated("WebviewHost's GObject calls are made on the main thread")
    guard let webView else { return 0 }
    return EmbeddedWebviewProvider.useDesktopProxy(in: WebviewHandle(address: webView)) ? 1 : 0
}

/// `wvh_allow_negotiate`: ``EmbeddedWebviewProvider/allowNegotiate(to:)``.
@_cdecl("wvh_bridge_allow_negotiate")
@MainActor public func wvh_bridge_allow_negotiate(
    _ origins: UnsafePointer<UnsafePointer<CChar>?>?, _ errorPointer: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
) -> gboolean {
    MainActor.preconditionIsolated("WebviewHost's GObject calls are made on the main thread")
    do throws(WebAuthError) {
        let urls = try StringArray.copy(origins).map { text throws(WebAuthError) -> URL in
            guard let url = URL(string: text) else {
                throw WebAuthError(.invalidParameters, "wvh_allow_negotiate takes http or https origins, such as https://adfs.example.com; \"\(text)\" is not a URL.")
            }
            return url
        }
        try EmbeddedWebviewProvider.allowNegotiate(to: urls)
        return 1
    } catch {
        error.set(on: errorPointer)
        return 0
    }
}

/// `wvh_public_client_application_prewarm`: ``PublicClientApplication/prewarm(webviewParameters:)``.
@_cdecl("wvh_bridge_application_prewarm")
@MainActor public func wvh_bridge_application_prewarm(
    _ bridge: UnsafeMutableRawPointer?, _ values: UnsafePointer<WvhBridgeInteractive>?
) -> UnsafeMutablePointer<CChar>? {
    MainActor.preconditionIsolated("WebviewHost's GObject calls are made on the main thread")
    guard let bridge else { return nil }
    let application = Unmanaged<BridgedApplication>.fromOpaque(bridge).takeUnretainedValue().application
    let parameters = values.map { InteractiveCall.parameters(from: $0.pointee) } ?? InteractiveTokenParameters(scopes: [])
    return application.prewarm(webviewParameters: parameters.webviewParameters).map { g_strdup($0.rawValue) }
}

@_cdecl("wvh_bridge_application_free")
public func wvh_bridge_application_free(_ bridge: UnsafeMutableRawPointer?) {
    guard let bridge else { return }
    Unmanaged<BridgedApplication>.fromOpaque(bridge).release()
}

@_cdecl("wvh_bridge_acquire_token")
@MainActor public func wvh_bridge_acquire_token(
    _ bridge: UnsafeMutableRawPointer?, _ emitter: OpaquePointer?, _ values: UnsafePointer<WvhBridgeInteractive>?,
    _ cancellable: UnsafeMutablePointer<GCancellable>?, _ done: WvhBridgeDone?, _ data: gpointer?
) {
    MainActor.preconditionIsolated("WebviewHost's GObject calls are made on the main thread")
    do {
        guard let bridge, let done else { return }
        let application = Unmanaged<BridgedApplication>.fromOpaque(bridge).takeUnretainedValue().application
        var parameters = values.map { InteractiveCall.parameters(from: $0.pointee) } ?? InteractiveTokenParameters(scopes: [])
        let signals = emitter.map { CallSignals(application: $0) }
        if let signals { parameters.onStep = { step in signals.emit(step) } }
        let call = CompletedCall(done: done, data: data, cancellable: cancellable, signals: signals)
        let task = Task { @MainActor in
            do throws(WebAuthError) {
                call.succeed(try await application.acquireToken(with: parameters))
            } catch {
                call.fail(error)
            }
        }
        call.cancelWith(task)
    }
}

@_cdecl("wvh_bridge_acquire_token_silent")
@MainActor public func wvh_bridge_acquire_token_silent(
    _ bridge: UnsafeMutableRawPointer?, _ accountIdentifier: UnsafePointer<CChar>?, _ scopes: UnsafePointer<UnsafePointer<CChar>?>?,
    _ forceRefresh: gboolean, _ cancellable: UnsafeMutablePointer<GCancellable>?, _ done: WvhBridgeDone?, _ data: gpointer?
) {
    MainActor.preconditionIsolated("WebviewHost's GObject calls are made on the main thread")
    do {
        guard let bridge, let done else { return }
        let application = Unmanaged<BridgedApplication>.fromOpaque(bridge).takeUnretainedValue().application
        let identifier = accountIdentifier.map { String(cString: $0) } ?? ""
        let scopeList = StringArray.copy(scopes)
        let call = CompletedCall(done: done, data: data, cancellable: cancellable)
        let task = Task { @MainActor in
            do throws(WebAuthError) {
                guard let account = try await application.allAccounts().first(where: { $0.identifier == identifier }) else {
                    throw WebAuthError(.interactionRequired, "No account \(identifier) is signed in to this app; sign in interactively.")
                }
                call.succeed(try await application.acquireTokenSilent(
                    with: SilentTokenParameters(scopes: scopeList, account: account, forceRefresh: forceRefresh != 0)))
            } catch {
                call.fail(error)
            }
        }
        call.cancelWith(task)
    }
}

@_cdecl("wvh_bridge_acquire_token_with_device_code")
@MainActor public func wvh_bridge_acquire_token_with_device_code(
    _ bridge: UnsafeMutableRawPointer?, _ emitter: OpaquePointer?, _ scopes: UnsafePointer<UnsafePointer<CChar>?>?,
    _ display: WvhDeviceCodeDisplay, _ parent: UnsafeMutablePointer<GtkWindow>?, _ cancellable: UnsafeMutablePointer<GCancellable>?,
    _ done: WvhBridgeDone?, _ data: gpointer?
) {
    MainActor.preconditionIsolated("WebviewHost's GObject calls are made on the main thread")
    guard let bridge, let done else { return }
    let application = Unmanaged<BridgedApplication>.fromOpaque(bridge).takeUnretainedValue().application
    let signals = emitter.map { CallSignals(application: $0) }
    let parentHandle = parent.map { WindowHandle(address: UnsafeMutableRawPointer($0)) }
    let shown: DeviceCodeDisplay
    switch display {
    case WVH_DEVICE_CODE_DISPLAY_TERMINAL: shown = .terminal
    case WVH_DEVICE_CODE_DISPLAY_WINDOW: shown = .window(parent: parentHandle)
    // The app shows it: `device-code` hands it the challenge.
    case WVH_DEVICE_CODE_DISPLAY_APP: shown = .app { challenge in signals?.emit(challenge) }
    default: shown = .automatic
    }
    var parameters = DeviceCodeParameters(scopes: StringArray.copy(scopes), display: shown)
    if let signals { parameters.onStep = { step in signals.emit(step) } }
    let call = CompletedCall(done: done, data: data, cancellable: cancellable, signals: signals)
    let task = Task { @MainActor in
        do throws(WebAuthError) {
            call.succeed(try await application.acquireTokenWithDeviceCode(with: parameters))
        } catch {
            call.fail(error)
        }
    }
    call.cancelWith(task)
}

@_cdecl("wvh_bridge_get_accounts")
@MainActor public func wvh_bridge_get_accounts(
    _ bridge: UnsafeMutableRawPointer?, _ cancellable: UnsafeMutablePointer<GCancellable>?, _ done: WvhBridgeDone?, _ data: gpointer?
) {
    MainActor.preconditionIsolated("WebviewHost's GObject calls are made on the main thread")
    guard let bridge, let done else { return }
    let application = Unmanaged<BridgedApplication>.fromOpaque(bridge).takeUnretainedValue().application
    let call = CompletedCall(done: done, data: data, cancellable: cancellable)
    let task = Task { @MainActor in
        do throws(WebAuthError) {
            call.succeed(try await application.allAccounts())
        } catch {
            call.fail(error)
        }
    }
    call.cancelWith(task)
}

@_cdecl("wvh_bridge_sign_out")
@MainActor public func wvh_bridge_sign_out(
    _ bridge: UnsafeMutableRawPointer?, _ emitter: OpaquePointer?, _ accountIdentifier: UnsafePointer<CChar>?,
    _ atIdentityProvider: gboolean, _ values: UnsafePointer<WvhBridgeInteractive>?, _ cancellable: UnsafeMutablePointer<GCancellable>?,
    _ done: WvhBridgeDone?, _ data: gpointer?
) {
    MainActor.preconditionIsolated("WebviewHost's GObject calls are made on the main thread")
    guard let bridge, let done else { return }
    let application = Unmanaged<BridgedApplication>.fromOpaque(bridge).takeUnretainedValue().application
    let identifier = accountIdentifier.map { String(cString: $0) } ?? ""
    let webview = values.map { InteractiveCall.parameters(from: $0.pointee).webviewParameters } ?? WebviewParameters()
    var parameters = SignOutParameters(reach: atIdentityProvider != 0 ? .identityProvider : .thisApp, webviewParameters: webview)
    let signals = emitter.map { CallSignals(application: $0) }
    if let signals { parameters.onStep = { step in signals.emit(step) } }
    let call = CompletedCall(done: done, data: data, cancellable: cancellable, signals: signals)
    let task = Task { @MainActor in
        do throws(WebAuthError) {
            guard let account = try await application.allAccounts().first(where: { $0.identifier == identifier }) else {
                call.succeed(false)  // nothing of this account is left to remove
                return
            }
            let result = try await application.signOut(account, with: parameters)
            if case .failed(let error) = result.identityProvider { throw error }
            call.succeed(result.tokensRemoved)
        } catch {
            call.fail(error)
        }
    }
    call.cancelWith(task)
}
