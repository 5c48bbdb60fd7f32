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
    /// The broker's own status (Microsoft's: `status`, e.g. `"interaction_required"`), if any.
    public var status: String?
    /// Its sub-status or error code (Microsoft's: `subStatus`, `errorCode`), if any.
    public var subStatus: String?
    /// Where in the broker it happened (Microsoft's: `context`), if any.
    public var context: String?
    /// The transport's error (a D-Bus error name and message), if the call itself failed.
    public var transport: String?

    public init(broker: String, status: String? = nil, subStatus: String? = nil, context: String? = nil, transport: String? = nil) {
        self.broker = broker
        self.status = status
        self.subStatus = subStatus
        self.context = context
        self.transport = transport
    }

    public var description: String {
        var parts = ["broker \(broker)"]
        if let status { parts.append("status \(status)") }
        if let subStatus { parts.append("subStatus \(subStatus)") }
        if let context { parts.append("context \(context)") }
        if let transport { parts.append("transport \(transport)") }
        return parts.joined(separator: ", ")
    }
}
