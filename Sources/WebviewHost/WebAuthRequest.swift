import Foundation

/// What a provider is told about a sign-in: where it must end and how to present it.
/// It carries no OAuth: the host builds and reads the protocol messages.
public struct WebAuthRequest: Sendable {
    /// The redirect URI the app asked for. A provider may bind a port and return another one
    /// from ``WebviewProviderSession/prepare()``.
    public let redirectURI: RedirectURI
    /// How the app wants the sign-in presented.
    public let parameters: WebviewParameters
    /// The environment the provider was chosen in.
    public let environment: WebviewEnvironment

    public init(redirectURI: RedirectURI, parameters: WebviewParameters, environment: WebviewEnvironment) {
        self.redirectURI = redirectURI
        self.parameters = parameters
        self.environment = environment
    }
}
