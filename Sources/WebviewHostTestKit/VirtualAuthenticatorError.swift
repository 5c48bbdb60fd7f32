import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Why a ``VirtualAuthenticator`` could not be created or a credential not added.
public struct VirtualAuthenticatorError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. A struct, so new codes do not break callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The socket could not be created, bound or listened on.
        public static let socketUnavailable = Code("socketUnavailable")
        /// The options cannot work (a PIN too short or too long).
        public static let invalidOptions = Code("invalidOptions")
        /// The credential cannot be added (its key, its id, or resident keys unsupported).
        public static let invalidCredential = Code("invalidCredential")
    }

    public var code: Code
    /// What happened, in words a developer can act on.
    public var message: String
    /// The `errno` of the system call that failed, when one did.
    public var errno: Int32?

    public init(_ code: Code, _ message: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    public var description: String {
        message + (errno.map { " (\(String(cString: strerror($0))))" } ?? "")
    }
}
