/// The stable identifier of a registered ``WebviewProvider``, such as `"embedded"` or `"system-browser"`.
///
/// Identifiers are what `WEBVIEW_HOST_PROVIDER=<id>` and ``WebviewType/provider(_:)`` name.
public struct WebviewProviderID: RawRepresentable, Hashable, Sendable, Comparable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
