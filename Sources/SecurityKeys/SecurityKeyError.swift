/// Why a security key did not make a credential or sign: what the key or libfido2 answered, in
/// terms a person and a web page can act on.
///
/// `code` grows without breaking callers (match with `==`, not an exhaustive `switch`); the
/// libfido2 status the key answered is kept in `fidoStatus`.
public struct SecurityKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The person did not confirm on the key (denied, or the key's own timeout ran out).
        public static let notAllowed = Code("notAllowed")
        /// A credential of `excludeCredentials` is on this key already.
        public static let credentialExcluded = Code("credentialExcluded")
        /// No credential on this key for this site (none of `allowCredentials`, or none stored).
        public static let noCredentials = Code("noCredentials")
        /// The key needs its PIN for this, and none was given.
        public static let pinRequired = Code("pinRequired")
        /// The PIN was wrong; `retriesLeft` says how many tries are left.
        public static let pinInvalid = Code("pinInvalid")
        /// Too many wrong PINs in a row: the key must be taken out and put back in first.
        public static let pinAuthBlocked = Code("pinAuthBlocked")
        /// No PIN tries left: the key must be reset, which erases its credentials.
        public static let pinBlocked = Code("pinBlocked")
        /// The site asks for user verification, and the key has no PIN set and no built-in way.
        public static let pinNotSet = Code("pinNotSet")
        /// The key's built-in user verification (a fingerprint) failed too often.
        public static let uvBlocked = Code("uvBlocked")
        /// None of the site's algorithms is one the key can make.
        public static let unsupportedAlgorithm = Code("unsupportedAlgorithm")
        /// The ceremony was cancelled (by the person, the page, or the library's own timeout).
        public static let cancelled = Code("cancelled")
        /// The key was taken out or stopped answering.
        public static let deviceGone = Code("deviceGone")
        /// Anything else the key or libfido2 answered.
        public static let other = Code("other")
    }

    public let code: Code
    /// PIN tries left, when the key said (`pinInvalid`).
    public let retriesLeft: Int?
    /// libfido2's status (`FIDO_ERR_*`), when the error came from a call.
    public let fidoStatus: Int32?
    /// libfido2's name for it (`fido_strerr`), or the library's own words.
    public let detail: String

    public init(_ code: Code, retriesLeft: Int? = nil, fidoStatus: Int32? = nil, detail: String) {
        self.code = code
        self.retriesLeft = retriesLeft
        self.fidoStatus = fidoStatus
        self.detail = detail
    }

    public var description: String {
        var text = "security key: \(code) (\(detail))"
        if let retriesLeft { text += ", \(retriesLeft) PIN tries left" }
        return text
    }
}
