public import WebviewHost

extension WebAuthError.Code {
    /// The person (or an administrator) must consent to the scopes first; sign in interactively.
    public static let consentRequired = WebAuthError.Code("consentRequired")
    /// The broker is not running, went away during the call, or could not be reached.
    public static let brokerUnavailable = WebAuthError.Code("brokerUnavailable")
    /// The broker answered in a form this library does not understand (another protocol version).
    public static let protocolMismatch = WebAuthError.Code("protocolMismatch")
}

/// What a broker said about a failure, kept as a ``WebviewHost/WebAuthError``'s `underlyingError`
/// for diagnosis. Holds no token and no raw response.
public struct TokenBrokerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broker's ``TokenBroker/id``.
    public var broker: String
    /// The broker's own status as it sent it (Microsoft's: `status`, a number in MSALRuntime's
    /// numbering such as `"2"` for InteractionRequired, or a name), if any.
    public var status: String?
    /// Its sub-status (Microsoft's: `subStatus`), if any.
    public var subStatus: String?
    /// Where in the broker it happened, or the identity provider's own words (Microsoft's:
    /// `context`, e.g. an AADSTS message), if any. It may name the person: for logs, not for the UI.
    public var context: String?
    /// The transport's error (a D-Bus error name and message), if the call itself failed.
    public var transport: String?
    /// The broker's error code (Microsoft's: `errorCode`, often 0), if any.
    public var errorCode: String?
    /// The broker's error tag (Microsoft's: `tag`, which its support reads), if any.
    public var tag: String?

    public init(
        broker: String, status: String? = nil, subStatus: String? = nil, context: String? = nil, transport: String? = nil,
        errorCode: String? = nil, tag: String? = nil
    ) {
        self.broker = broker
        self.status = status
        self.subStatus = subStatus
        self.context = context
        self.transport = transport
        self.errorCode = errorCode
        self.tag = tag
    }

    public var description: String {
        var parts = ["broker \(broker)"]
        if let status { parts.append("status \(status)") }
        if let subStatus { parts.append("subStatus \(subStatus)") }
        if let errorCode { parts.append("errorCode \(errorCode)") }
        if let tag { parts.append("tag \(tag)") }
        if let context { parts.append("context \(context)") }
        if let transport { parts.append("transport \(transport)") }
        return parts.joined(separator: ", ")
    }
}
