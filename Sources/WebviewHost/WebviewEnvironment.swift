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

    public init(variables: [String: String], hasDisplay: Bool? = nil, isSandboxed: Bool? = nil) {
        self.variables = variables
        self.hasDisplay = hasDisplay ?? Self.displayIsSet(in: variables)
        self.isSandboxed = isSandboxed ?? (variables["FLATPAK_ID"] != nil || variables["SNAP"] != nil)
    }

    /// The environment of this process.
    public static var current: WebviewEnvironment {
        let variables = ProcessInfo.processInfo.environment
        let flatpak = access("/.flatpak-info", F_OK) == 0
        return WebviewEnvironment(
            variables: variables,
            isSandboxed: flatpak || variables["FLATPAK_ID"] != nil || variables["SNAP"] != nil)
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
