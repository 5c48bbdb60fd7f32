public import WebviewHost

extension WebAuthError.Code {
    /// An external provider could not be started, or ended before the sign-in did.
    public static let externalProviderFailed = WebAuthError.Code("externalProviderFailed")
    /// An external provider broke the protocol: a wrong version, a malformed or oversized line,
    /// a flood of messages, a message out of order, no answer in time, or a redirect that is not
    /// the session's.
    public static let externalProviderProtocol = WebAuthError.Code("externalProviderProtocol")
}
