import Foundation
public import WebviewHost

#if canImport(Glibc)
    import Glibc
#endif

/// A provider that runs in another process, in any language: an executable named by a
/// ``ProviderDescriptor``, spoken to in JSON lines over its standard input and output
/// (`ExternalProviders.md` is the specification).
///
/// Each session starts its own child (so nothing one session's child prints can reach another
/// session), which is ended — its whole process group — and reaped when the session is
/// dismissed. Whatever the child does, the session ends with one outcome: a crash, an early
/// exit, garbage, an oversized line, a flood or silence all end it with
/// `WebAuthError.Code.externalProviderFailed` or `.externalProviderProtocol`.
///
/// Apps usually do not make these themselves: `WebviewProviderRegistry.registerInstalledProviders()`
/// makes one per installed descriptor.
public struct ExternalProvider: WebviewProvider {
    /// Limits the host holds a plugin to. The defaults suit a person-facing sign-in.
    public struct Limits: Sendable, Hashable {
        /// How long the plugin may take to answer `hello` (it should answer at once).
        public var handshakeTimeout: Duration
        /// How long the plugin may take to answer `prepare` (binding a port, not asking the person).
        public var prepareTimeout: Duration
        /// The longest line the plugin may write, in bytes (newline excluded). A session allows
        /// more when the host sent a long URL: twice the longest URL it sent plus 1 KiB, so a
        /// plugin echoing the authorization URL is never refused.
        public var maxLineLength: Int
        /// The most messages the plugin may write in any one second.
        public var maxMessagesPerSecond: Int
        /// How long the plugin has to exit after `dismiss` before its process group is killed.
        public var dismissGrace: Duration
        /// How long a line the host writes may stay unread in the plugin's standard input: a plugin
        /// that stops reading ends the session with `externalProviderProtocol` this long after the
        /// line, not at the session's timeout.
        public var inputReadTimeout: Duration

        public init(
            handshakeTimeout: Duration = .seconds(5), prepareTimeout: Duration = .seconds(15),
            maxLineLength: Int = 64 * 1024, maxMessagesPerSecond: Int = 200, dismissGrace: Duration = .seconds(1),
            inputReadTimeout: Duration = .seconds(5)
        ) {
            self.handshakeTimeout = handshakeTimeout
            self.prepareTimeout = prepareTimeout
            self.maxLineLength = maxLineLength
            self.maxMessagesPerSecond = maxMessagesPerSecond
            self.dismissGrace = dismissGrace
            self.inputReadTimeout = inputReadTimeout
        }
    }

    /// The timeout when neither the app nor the descriptor sets one: the host cannot see what
    /// a plugin shows (a browser tab closing, say), so, as for the system browser, 10 minutes.
    public static let fallbackTimeout: Duration = .seconds(600)

    public let descriptor: ProviderDescriptor
    public let limits: Limits

    public init(descriptor: ProviderDescriptor, limits: Limits = .init()) {
        self.descriptor = descriptor
        self.limits = limits
    }

    public var id: WebviewProviderID { descriptor.id }
    public var displayName: String { descriptor.name }
    public var priority: Int { descriptor.priority }
    public var kind: WebviewProviderKind { descriptor.kind }
    public var requiresDisplay: Bool { descriptor.requiresDisplay }
    public var brokerSchemes: Set<String> { descriptor.brokerSchemes }
    public var defaultTimeout: Duration? { descriptor.timeout ?? Self.fallbackTimeout }
    public var origin: String? {
        descriptor.file.map { "\($0.path) (runs \(descriptor.arguments[0]))" } ?? "runs \(descriptor.arguments[0])"
    }

    public func availability(in environment: WebviewEnvironment) -> WebviewProviderAvailability {
        if requiresDisplay, !environment.hasDisplay {
            return .unavailable(reason: "it needs a display (DISPLAY and WAYLAND_DISPLAY are unset)")
        }
        let program = descriptor.arguments[0]
        if program.hasPrefix("/") {
            var info = stat()
            guard stat(program, &info) == 0 else { return .unavailable(reason: "its program \(program) does not exist") }
            guard info.st_mode & S_IFMT == S_IFREG, access(program, X_OK) == 0 else {
                return .unavailable(reason: "its program \(program) is not an executable file")
            }
            return .available
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where access("\(directory)/\(program)", X_OK) == 0 {
            return .available
        }
        return .unavailable(reason: "its program \(program) is not on PATH")
    }

    @MainActor
    public func makeSession(for request: WebAuthRequest, reporter: WebAuthSessionReporter) throws
        -> any WebviewProviderSession
    {
        if request.parameters.customWebview != nil {
            throw WebAuthError(
                .invalidParameters, "The provider \"\(id)\" runs in another process and cannot use a customWebview.")
        }
        Self.ignoreBrokenPipes()
        return ExternalProviderSession(provider: self, request: request, reporter: reporter)
    }

    /// Writing to a plugin that has exited must fail with `EPIPE`, not kill the app with
    /// `SIGPIPE`, and no per-pipe option exists on Linux. So, as GIO's `GSocket` does, `SIGPIPE`
    /// is ignored process-wide — only if nothing handles it yet (an app's own handler stays).
    /// Children get the default back (``ChildProcess`` resets it).
    private static func ignoreBrokenPipes() {
        _ = sigpipeIgnored
    }

    private static let sigpipeIgnored: Bool = {
        let previous = signal(SIGPIPE, SIG_IGN)
        // 0 is SIG_DFL, 1 SIG_IGN, -1 SIG_ERR: anything else is the app's own handler.
        if ![0, 1, -1].contains(unsafeBitCast(previous, to: Int.self)) { signal(SIGPIPE, previous) }
        return true
    }()
}
