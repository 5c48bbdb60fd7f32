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
// `WvhInteractiveParameters` (`selection-policy`) chooses the provider of that call only. It
// travels in the call's own `WebviewParameters.selectionPolicy` (a `GObjectSelectionPolicy`),
// which the host reads where it chooses; the process's `WebviewProviderRegistry.selectionPolicy`
// is never replaced, so concurrent calls each see theirs, and calls without one the process's.

/// One call's `WvhSelectionPolicy` and the `WvhInteractiveParameters` it is asked with: made and
/// asked on the main actor only (a policy in Python must not be touched elsewhere), and released
/// there too (`isolated deinit`), wherever the last copy of the call's parameters goes (a
/// session's timer may end on another thread).
@MainActor
final class CallSelectionPolicy {
    private let policy: GObjectRef<OpaquePointer>
    private let parameters: GObjectRef<OpaquePointer>

    /// The policy of these parameters, or `nil` when they have none.
    init?(_ values: WvhBridgeInteractive) {
        guard let policy = values.selection_policy, let parameters = values.object else { return nil }
        self.policy = GObjectRef(retaining: policy)
        self.parameters = GObjectRef(retaining: parameters)
    }

    isolated deinit {}

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

/// A call's own selection policy (its `WebviewParameters.selectionPolicy`): the call's
/// `WvhSelectionPolicy`, asked on the main actor; when it leaves the choice (`NULL`), the
/// process's policy (the current registry scope's `WebviewProviderRegistry.selectionPolicy`).
struct GObjectSelectionPolicy: WebviewSelectionPolicy {
    /// The call's policy and parameters.
    let call: CallSelectionPolicy

    /// The policy of these parameters, or `nil` when they have none.
    @MainActor
    init?(_ values: WvhBridgeInteractive) {
        guard let call = CallSelectionPolicy(values) else { return nil }
        self.call = call
    }

    func selectProvider(
        for parameters: WebviewParameters, among providers: [any WebviewProvider], in environment: WebviewEnvironment
    ) throws(WebAuthError) -> any WebviewProvider {
        // The host chooses on the main actor (`WebAuthSession.prepare()`), where the policy's
        // language runs. Anywhere else the policy cannot be asked, and is not skipped silently.
        guard Thread.isMainThread else {
            throw WebAuthError(
                .providerUnavailable, "The app's selection policy can only be asked on the main thread; the provider was chosen on another.")
        }
        let answer = MainActor.assumeIsolated { call.ask(among: providers, in: environment) }
        switch answer {
        case .failure(let refusal):
            throw refusal
        case .success(nil):
            var rest = parameters
            rest.selectionPolicy = nil
            return try WebviewProviderRegistry.selectionPolicy.selectProvider(for: rest, among: providers, in: environment)
        case .success(let id?):
            // The chosen id as the app's explicit choice: the default policy checks it is
            // registered, can run here, and can show a custom webview if there is one.
            var chosen = parameters
            chosen.selectionPolicy = nil
            chosen.webviewType = .provider(WebviewProviderID(id))
            do throws(WebAuthError) {
                return try DefaultWebviewSelectionPolicy().selectProvider(for: chosen, among: providers, in: environment)
            } catch {
                throw WebAuthError(error.code, "The app's selection policy chose \"\(id)\": \(error.message)", underlyingError: error)
            }
        }
    }
}
