public import WebviewHost

extension WebviewProviderID {
    /// The system-browser provider: the person's default browser, redirect to a loopback listener
    /// or to the app's custom URI scheme.
    public static let systemBrowser: WebviewProviderID = "system-browser"
}
