public import Foundation
internal import Logging
internal import Synchronization

/// Where a process finds the virtual authenticators its tests run, instead of the security keys
/// plugged in: `WEBVIEWHOST_VIRTUAL_AUTHENTICATORS`, a colon-separated list of Unix socket paths.
///
/// Each socket is one authenticator, served by `VirtualAuthenticator` in `WebviewHostTestKit` (or
/// anything that speaks the same frames). The wire is CTAPHID itself: every message in either
/// direction is one 64-byte HID report, without the report ID byte a hidraw write carries. A
/// connection is one opening of the device; libfido2 frames, channels and keep-alives are the
/// same as over USB, so the library's CTAP2 client code is the code a real key meets.
///
/// Never on by default: the variable must be set, and the library logs loudly when it is.
public enum VirtualAuthenticatorSockets {
    /// The environment variable's name.
    public static let environmentVariable = "WEBVIEWHOST_VIRTUAL_AUTHENTICATORS"

    /// The size of a CTAPHID report on the socket, both ways.
    public static let reportLength = 64

    /// The socket paths the environment names (none when the variable is unset or empty).
    public static func paths(in environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        (environment[environmentVariable] ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
    }
}

extension VirtualAuthenticatorSockets {
    private static let warned = Mutex(false)
    static let logger = Logger(label: "WebviewHost.securityKeys")

    /// Logs, once per process and loudly, that virtual authenticators stand in for security keys.
    static func warnOnce(_ paths: [String]) {
        let first = warned.withLock { warned in
            defer { warned = true }
            return !warned
        }
        guard first else { return }
        let line = "\(environmentVariable) is set: WebAuthn ceremonies use the virtual authenticators at \(paths.joined(separator: ", ")), never a security key plugged in. This is for tests only."
        logger.warning("\(line)")
        FileHandle.standardError.write(Data("WebviewHost: WARNING: \(line)\n".utf8))
    }
}
