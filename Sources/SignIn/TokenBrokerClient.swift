public import Foundation

/// The app a broker call is for, as registered at the identity provider.
public struct TokenBrokerClient: Sendable, Hashable {
    /// The client identifier.
    public var clientID: String
    /// The authority the app signs in at (`https://login.microsoftonline.com/<tenant>`).
    public var authority: URL
    /// The app's own redirect URI (a broker may use its own instead, registered for the app).
    public var redirectURI: URL

    public init(clientID: String, authority: URL, redirectURI: URL) {
        self.clientID = clientID
        self.authority = authority
        self.redirectURI = redirectURI
    }
}
