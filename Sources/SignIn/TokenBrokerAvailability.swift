/// Whether a ``TokenBroker`` serves an app at an authority now; the reasons are logged and meant
/// for a person reading the log.
public enum TokenBrokerAvailability: Sendable, Equatable, CustomStringConvertible {
    case available
    /// The broker is not installed, not running and cannot be started, or cannot be reached.
    case unavailable(reason: String)
    /// The broker runs but does not handle this authority (Microsoft's: B2C, ADFS, other issuers).
    case declinesAuthority(reason: String)

    public var isAvailable: Bool { self == .available }

    public var description: String {
        switch self {
        case .available: "available"
        case .unavailable(let reason): "unavailable: \(reason)"
        case .declinesAuthority(let reason): "declines the authority: \(reason)"
        }
    }
}
