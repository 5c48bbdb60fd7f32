#if WEBKITGTK_6
import CWebviewHostGObjectGTK4
#else
import CWebviewHostGObjectGTK3
#endif
import CGLib
import Foundation
import GLibSupport
import WebviewHost

// The app's own choice of provider, in any language: a `WvhSelectionPolicy` set on a call's
// `WvhInteractiveParameters` (`selection-policy`) chooses the provider of that call only. The
// host asks the process's `WebviewProviderRegistry.selectionPolicy`; while a call with a policy
// runs, that is `GObjectSelectionPolicy`, which finds the call's own policy in a task-local value
// (concurrent calls each see theirs, or none) and otherwise asks the policy it wrapped.

/// One call's `WvhSelectionPolicy` and the `WvhInteractiveParameters` it is asked with: made,
/// asked and released on the main actor only (a policy in Python must not be touched elsewhere).
@MainActor
final class CallSelectionPolicy {
    private let policy: GObjectRef<OpaquePointer>
    private let parameters: GObjectRef<OpaquePointer>

    /// The policies of the calls running now, by the key their task-local value carries; a call's
    /// entry goes when the call ends.
    private static var running: [Key: CallSelectionPolicy] = [:]
    private static var lastKey: UInt64 = 0

    /// What a call's task-local value carries: a key, never the objects, because every task the
    /// call starts inherits the value, and some of them end on other threads (a session's timer):
    /// releasing the objects there would run a Python object's code off the main thread.
    struct Key: Sendable, Hashable {
        let value: UInt64
    }

    /// The policy of the running call with this key; `nil` once that call ended.
    static func policy(for key: Key) -> CallSelectionPolicy? {
        running[key]
    }

    /// The policy of these parameters, or `nil` when they have none.
    init?(_ values: WvhBridgeInteractive) {
        guard let policy = values.selection_policy, let parameters = values.object else { return nil }
        self.policy = GObjectRef(retaining: policy)
        self.parameters = GObjectRef(retaining: parameters)
    }

    /// Runs `body` (a call of the Swift API) with `call`'s policy choosing its provider; just
    /// `body` when there is none.
    static func run<Value: Sendable>(
        _ call: CallSelectionPolicy?, _ body: @MainActor () async throws(WebAuthError) -> Value
    ) async throws(WebAuthError) -> Value {
        guard let call else { return try await body() }
        GObjectSelectionPolicy.install()
        lastKey += 1
        let key = Key(value: lastKey)
        running[key] = call
        defer { running[key] = nil }
        let result = await GObjectSelectionPolicy.$call.withValue(key) { () async -> Result<Value, WebAuthError> in
            do throws(WebAuthError) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The policy's answer (`wvh_selection_policy_select_provider`): a provider id, `nil` for the
    /// default choice, or its refusal as a `WebAuthError`.
    func ask(among providers: [any WebviewProvider], in environment: WebviewEnvironment) -> Result<String?, WebAuthError> {
        guard let array = _wvh_provider_info_array_new() else {
            return .failure(WebAuthError(.providerUnavailable, "The providers could not be listed for the selection policy."))
        }
        defer { g_ptr_array_unref(array) }
        for provider in providers {
            let availability = provider.availability(in: environment)
            let kind: WvhProviderKind = switch provider.kind {
            case .systemBrowser: WVH_PROVIDER_KIND_SYSTEM_BROWSER
            case .embeddedView: WVH_PROVIDER_KIND_EMBEDDED_VIEW
            case .other: WVH_PROVIDER_KIND_OTHER
            }
            let info = _wvh_provider_info_new(
                provider.id.rawValue, provider.displayName, kind, Int32(clamping: provider.priority), availability.isAvailable ? 1 : 0,
                availability.reason, provider.supportsCustomWebview ? 1 : 0, provider.requiresDisplay ? 1 : 0)
            g_ptr_array_add(array, info.map { UnsafeMutableRawPointer($0) })
        }
        var error: UnsafeMutablePointer<GError>?
        let chosen = wvh_selection_policy_select_provider(policy.pointer, parameters.pointer, array, &error)
        defer { g_free(chosen) }
        if let error {
            defer { g_error_free(error) }
            // The policy's refusal: its own message; its code where it is one the protocol allows.
            let invalid = error.pointee.domain == wvh_error_quark() && error.pointee.code == gint(WVH_ERROR_INVALID_PARAMETERS.rawValue)
            let message = error.pointee.message.map { String(cString: $0) } ?? ""
            return .failure(WebAuthError(
                invalid ? .invalidParameters : .providerUnavailable,
                message.isEmpty ? "The app's selection policy refused the sign-in." : message))
        }
        return .success(chosen.map { String(cString: $0) })
    }
}

/// The process's selection policy while the GObject layer has calls with a policy of their own:
/// inside such a call (a task-local value the bridge sets around it), the call's
/// `WvhSelectionPolicy`; everywhere else, the policy it replaced (the default one, unless Swift
/// code of the app set another).
struct GObjectSelectionPolicy: WebviewSelectionPolicy {
    /// The key of the call the current task runs, if that call has a policy.
    @TaskLocal static var call: CallSelectionPolicy.Key?

    /// What chooses outside such calls, and when a call's policy leaves the choice (`NULL`).
    let fallback: any WebviewSelectionPolicy

    /// Makes this the registry's policy, wrapping the one there, unless it is already.
    @MainActor
    static func install() {
        let current = WebviewProviderRegistry.selectionPolicy
        guard !(current is GObjectSelectionPolicy) else { return }
        WebviewProviderRegistry.selectionPolicy = GObjectSelectionPolicy(fallback: current)
    }

    func selectProvider(
        for parameters: WebviewParameters, among providers: [any WebviewProvider], in environment: WebviewEnvironment
    ) throws(WebAuthError) -> any WebviewProvider {
        guard let key = Self.call else {
            return try fallback.selectProvider(for: parameters, among: providers, in: environment)
        }
        // The host chooses on the main actor (`WebAuthSession.prepare()`), where the policy's
        // language runs. Anywhere else the policy cannot be asked, and is not skipped silently.
        guard Thread.isMainThread else {
            throw WebAuthError(
                .providerUnavailable, "The app's selection policy can only be asked on the main thread; the provider was chosen on another.")
        }
        let answer = MainActor.assumeIsolated { CallSelectionPolicy.policy(for: key)?.ask(among: providers, in: environment) }
        switch answer {
        case .failure(let refusal):
            throw refusal
        case .success(nil), nil:  // nil: the call ended (nothing of it chooses a provider then)
            return try fallback.selectProvider(for: parameters, among: providers, in: environment)
        case .success(let id?):
            // The chosen id as the app's explicit choice: the default policy checks it is
            // registered, can run here, and can show a custom webview if there is one.
            var chosen = parameters
            chosen.webviewType = .provider(WebviewProviderID(id))
            do throws(WebAuthError) {
                return try DefaultWebviewSelectionPolicy().selectProvider(for: chosen, among: providers, in: environment)
            } catch {
                throw WebAuthError(error.code, "The app's selection policy chose \"\(id)\": \(error.message)", underlyingError: error)
            }
        }
    }
}
