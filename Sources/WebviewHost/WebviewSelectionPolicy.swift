import Foundation

/// Chooses the provider that runs a session. Set one call's own in its parameters
/// (``WebviewParameters/selectionPolicy``), or replace the process's,
/// ``WebviewProviderRegistry/selectionPolicy``, to choose your own way;
/// ``DefaultWebviewSelectionPolicy`` is the default (RFC 8252: the person's browser when there is one).
public protocol WebviewSelectionPolicy: Sendable {
    /// The provider for these parameters, among `providers` (highest priority first).
    /// - Throws: ``WebAuthError`` `.providerUnavailable` or `.invalidParameters`, saying why.
    func selectProvider(
        for parameters: WebviewParameters,
        among providers: [any WebviewProvider],
        in environment: WebviewEnvironment
    ) throws(WebAuthError) -> any WebviewProvider
}

/// The default choice (RFC 8252: the person's browser first):
///
/// | situation | provider |
/// |---|---|
/// | `customWebview` supplied | an embedded-view provider that supports it |
/// | display and an available system browser | the system browser |
/// | display, no browser | an embedded view |
/// | no display | the highest-priority available provider that needs no display |
///
/// `WEBVIEW_HOST_PROVIDER=<id>` forces a provider for `.default` sessions without a custom
/// webview (an explicit type is the app's decision and wins); `WEBVIEW_HOST_PROVIDER=help`
/// prints ``helpText(providers:environment:)`` to standard error and chooses as usual.
public struct DefaultWebviewSelectionPolicy: WebviewSelectionPolicy {
    /// Where `help` output goes; standard error when `nil` (tests capture it).
    public var printHelp: (@Sendable (String) -> Void)?

    public init(printHelp: (@Sendable (String) -> Void)? = nil) {
        self.printHelp = printHelp
    }

    public func selectProvider(
        for parameters: WebviewParameters,
        among providers: [any WebviewProvider],
        in environment: WebviewEnvironment
    ) throws(WebAuthError) -> any WebviewProvider {
        let providers = providers.sorted { ($0.priority, $1.id) > ($1.priority, $0.id) }
        if parameters.customWebview != nil {
            switch parameters.webviewType {
            case .authenticationSession:
                throw WebAuthError(
                    .invalidParameters,
                    "A customWebview cannot be used with webviewType .authenticationSession, which signs in "
                        + "in the person's own browser; use .embedded or .default, or drop the customWebview.")
            case .provider(let id):
                let provider = try registered(id, in: providers)
                guard provider.supportsCustomWebview else {
                    throw WebAuthError(
                        .invalidParameters,
                        "The provider \"\(id)\" cannot show sign-in in a customWebview; drop the customWebview "
                            + "or choose a provider that supports one.")
                }
                return try requireAvailable(provider, in: environment)
            case .default, .embedded:
                let candidates = providers.filter { $0.kind == .embeddedView && $0.supportsCustomWebview }
                return try firstAvailable(
                    candidates, in: environment,
                    missing: "No registered provider can show sign-in in a customWebview "
                        + "(register the built-in providers first).")
            }
        }

        switch parameters.webviewType {
        case .provider(let id):
            return try requireAvailable(try registered(id, in: providers), in: environment)
        case .authenticationSession:
            return try firstAvailable(
                providers.filter { $0.kind == .systemBrowser }, in: environment,
                missing: "No system-browser provider is registered (register the built-in providers first).")
        case .embedded:
            return try firstAvailable(
                providers.filter { $0.kind == .embeddedView }, in: environment,
                missing: "No embedded-view provider is registered (register the built-in providers first).")
        case .default:
            if let forced = environment.providerOverride {
                if forced == "help" {
                    (printHelp ?? standardErrorWrite)(Self.helpText(providers: providers, environment: environment))
                } else {
                    return try requireAvailable(
                        try registered(WebviewProviderID(forced), in: providers, forced: true), in: environment)
                }
            }
            return try defaultChoice(among: providers, in: environment)
        }
    }

    private func defaultChoice(
        among providers: [any WebviewProvider], in environment: WebviewEnvironment
    ) throws(WebAuthError) -> any WebviewProvider {
        let available = providers.filter { $0.availability(in: environment).isAvailable }
        if environment.hasDisplay {
            for kind in [WebviewProviderKind.systemBrowser, .embeddedView, .other] {
                if let provider = available.first(where: { $0.kind == kind }) { return provider }
            }
        } else if let provider = available.first(where: { !$0.requiresDisplay }) {
            return provider
        }
        var message =
            environment.hasDisplay
            ? "No sign-in provider can run here."
            : "There is no display (DISPLAY and WAYLAND_DISPLAY are unset) and no registered provider works without one."
        message += " " + Self.reasons(providers, environment)
        throw WebAuthError(.providerUnavailable, message)
    }

    private func registered(
        _ id: WebviewProviderID, in providers: [any WebviewProvider], forced: Bool = false
    ) throws(WebAuthError) -> any WebviewProvider {
        guard let provider = providers.first(where: { $0.id == id }) else {
            let names = providers.map(\.id.rawValue).joined(separator: ", ")
            let source = forced ? "\(WebviewEnvironment.providerOverrideVariable) names" : "The session asks for"
            throw WebAuthError(
                .providerUnavailable,
                "\(source) the provider \"\(id)\", which is not registered. Registered: \(names.isEmpty ? "none" : names).")
        }
        return provider
    }

    private func requireAvailable(
        _ provider: any WebviewProvider, in environment: WebviewEnvironment
    ) throws(WebAuthError) -> any WebviewProvider {
        if case .unavailable(let reason) = provider.availability(in: environment) {
            throw WebAuthError(
                .providerUnavailable, "The provider \"\(provider.id)\" cannot run here: \(reason)")
        }
        return provider
    }

    private func firstAvailable(
        _ candidates: [any WebviewProvider], in environment: WebviewEnvironment, missing: String
    ) throws(WebAuthError) -> any WebviewProvider {
        guard !candidates.isEmpty else { throw WebAuthError(.providerUnavailable, missing) }
        if let provider = candidates.first(where: { $0.availability(in: environment).isAvailable }) {
            return provider
        }
        throw WebAuthError(.providerUnavailable, "No suitable provider can run here. " + Self.reasons(candidates, environment))
    }

    private static func reasons(_ providers: [any WebviewProvider], _ environment: WebviewEnvironment) -> String {
        let lines = providers.compactMap { provider in
            provider.availability(in: environment).reason.map { "\(provider.id): \($0)" }
        }
        return lines.isEmpty ? "No provider is registered." : lines.joined(separator: "; ")
    }

    /// The `WEBVIEW_HOST_PROVIDER=help` listing: each provider with its kind, priority,
    /// whether it can run here (and why not), and where it came from when it was installed.
    public static func helpText(providers: [any WebviewProvider], environment: WebviewEnvironment) -> String {
        var lines = [
            environment.sandbox.map { "Sandbox: \($0.summary)" } ?? (environment.isSandboxed ? "Sandbox: yes" : "Sandbox: none"),
            "Sign-in providers (\(WebviewEnvironment.providerOverrideVariable)=<id> forces one):",
        ]
        if providers.isEmpty { lines.append("  (none registered)") }
        for provider in providers {
            let availability = provider.availability(in: environment)
            let state = availability.reason.map { "unavailable: \($0)" } ?? "available"
            lines.append(
                "  \(provider.id) - \(provider.displayName) [\(provider.kind), priority \(provider.priority)"
                    + "\(provider.requiresDisplay ? "" : ", no display needed")]: \(state)")
            if let origin = provider.origin { lines.append("    from \(origin)") }
            lines += provider.helpNotes(in: environment).map { "    \($0)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Writes `text` to standard error.
@Sendable func standardErrorWrite(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
