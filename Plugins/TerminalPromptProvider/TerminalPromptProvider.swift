public import Foundation
public import WebviewHost

/// Sign-in from a terminal with no display (SSH, a TTY): prints the authorization URL, the
/// person opens it in any browser (on any machine) and pastes back the address the browser ends
/// on — for a loopback redirect that page does not load, but its address holds the response.
///
/// A plugin: it uses only the public `WebviewHost` API. The default policy chooses it when
/// there is no display; `WEBVIEW_HOST_PROVIDER=terminal-prompt` forces it.
public struct TerminalPromptProvider: WebviewProvider {
    public static let id: WebviewProviderID = "terminal-prompt"

    public var id: WebviewProviderID { Self.id }
    public var displayName: String { "Terminal (open the link, paste the address back)" }
    public var kind: WebviewProviderKind { .other }
    public var priority: Int { 10 }
    public var requiresDisplay: Bool { false }
    public var defaultTimeout: Duration? { .seconds(600) }

    private let input: FileHandle
    private let output: FileHandle
    private let requiresTerminal: Bool

    /// - Parameters:
    ///   - input: where the pasted address is read from (standard input).
    ///   - output: where the instructions go (standard error, so they do not mix with program output).
    ///   - requiresTerminal: be available only when `input` is a terminal (tests pass a pipe).
    public init(input: FileHandle = .standardInput, output: FileHandle = .standardError, requiresTerminal: Bool = true) {
        self.input = input
        self.output = output
        self.requiresTerminal = requiresTerminal
    }

    public func availability(in environment: WebviewEnvironment) -> WebviewProviderAvailability {
        if requiresTerminal, isatty(input.fileDescriptor) == 0 {
            return .unavailable(reason: "standard input is not a terminal, so nobody can paste the address back")
        }
        return .available
    }

    @MainActor
    public func makeSession(for request: WebAuthRequest, reporter: WebAuthSessionReporter) throws
        -> any WebviewProviderSession
    {
        if request.parameters.customWebview != nil {
            throw WebAuthError(.invalidParameters, "The terminal provider cannot use a customWebview.")
        }
        return TerminalPromptSession(request: request, reporter: reporter, input: input, output: output)
    }
}
