public import WebviewHost

extension WebviewProviderID {
    /// The built-in WebKitGTK provider (``EmbeddedWebviewProvider``).
    public static let embedded: WebviewProviderID = "embedded"
}
