import Foundation

/// What the selection policy and providers know about where the app runs.
/// Tests inject their own; apps use ``current``.
public struct WebviewEnvironment: Sendable, Hashable {
    /// The name of the variable that forces a provider by identifier (`help` lists them).
    public static let providerOverrideVariable = "WEBVIEW_HOST_PROVIDER"

    /// The process environment (or an injected one).
    public var variables: [String: String]
    /// A graphical session is reachable (`DISPLAY` or `WAYLAND_DISPLAY` set).
    public var hasDisplay: Bool
    /// The app runs in a Flatpak or Snap sandbox, where the OpenURI portal opens URIs.
    public var isSandboxed: Bool
    /// What the sandbox shares, when the app runs in one (``isSandboxed``) and it says.
    public var sandbox: WebviewSandbox?

    public init(variables: [String: String], hasDisplay: Bool? = nil, isSandboxed: Bool? = nil, sandbox: WebviewSandbox? = nil) {
        self.variables = variables
        self.hasDisplay = hasDisplay ?? Self.displayIsSet(in: variables)
        self.isSandboxed = isSandboxed ?? (sandbox != nil || variables["FLATPAK_ID"] != nil || variables["SNAP"] != nil)
        self.sandbox = sandbox
    }

    /// The environment of this process (its sandbox read from `/.flatpak-info` or the variables).
    public static var current: WebviewEnvironment {
        let variables = ProcessInfo.processInfo.environment
        let sandbox = WebviewSandbox.current(variables: variables)
        return WebviewEnvironment(variables: variables, isSandboxed: sandbox != nil, sandbox: sandbox)
    }

    /// The provider forced by `WEBVIEW_HOST_PROVIDER`, if set and not empty.
    public var providerOverride: String? {
        guard let value = variables[Self.providerOverrideVariable]?
            .trimmingCharacters(in: .whitespaces), !value.isEmpty
        else { return nil }
        return value
    }

    private static func displayIsSet(in variables: [String: String]) -> Bool {
        ["DISPLAY", "WAYLAND_DISPLAY"].contains { !(variables[$0] ?? "").isEmpty }
    }
}
