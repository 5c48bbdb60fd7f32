public import CGLib

/// A `GError`, copied into Swift (domain, code, message).
public struct GLibError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The error domain, as `g_quark_to_string(error->domain)` names it (`g-io-error-quark`...).
    public let domain: String
    public let code: Int32
    public let message: String

    public init(domain: String, code: Int32, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }

    /// Copies a `GError` without taking ownership of it.
    public init(_ error: UnsafePointer<GError>) {
        domain = g_quark_to_string(error.pointee.domain).map { String(cString: $0) } ?? "unknown"
        code = error.pointee.code
        message = error.pointee.message.map { String(cString: $0) } ?? ""
    }

    /// Copies and frees a `GError` returned through an out-parameter (`g_error_free`).
    public init(consuming error: UnsafeMutablePointer<GError>) {
        self.init(UnsafePointer(error))
        g_error_free(error)
    }

    public var description: String { "\(message) [\(domain) \(code)]" }

    /// Whether this is `G_IO_ERROR` with `code` (e.g. `G_IO_ERROR_CANCELLED`).
    public func isIOError(_ code: GIOErrorEnum) -> Bool {
        domain == "g-io-error-quark" && self.code == Int32(code.rawValue)
    }

    /// Whether this is `G_IO_ERROR_TIMED_OUT` (a GDBus call's own time limit, say). A property,
    /// because a module that also imports libsecret may not see GIO's enum constants itself.
    public var isTimedOut: Bool { isIOError(G_IO_ERROR_TIMED_OUT) }
}

/// Calls a GLib function that reports failure through a `GError **` out-parameter, and turns
/// that error into a thrown ``GLibError``.
public func withGError<Result>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> Result) throws(GLibError) -> Result {
    var error: UnsafeMutablePointer<GError>?
    let result = body(&error)
    if let error { throw GLibError(consuming: error) }
    return result
}
