public import Foundation
public import WebviewHost

extension WebAuthError.Code {
    /// The device code expired before the person approved the sign-in on the other device
    /// (`expired_token`, RFC 8628 3.5); start again.
    public static let deviceCodeExpired = WebAuthError.Code("deviceCodeExpired")
    /// The person refused the sign-in on the other device (`access_denied`).
    public static let deviceCodeDenied = WebAuthError.Code("deviceCodeDenied")
    /// The organization blocks signing in with a code on another device (Microsoft Entra ID's
    /// Conditional Access, AADSTS53003 and the like): sign in with a browser instead.
    public static let deviceCodeBlocked = WebAuthError.Code("deviceCodeBlocked")
}

/// What the person needs to sign in on another device (RFC 8628 section 3.2): the code, where to
/// enter it, for how long. Shown by the app, a terminal or a window (``DeviceCodeParameters``).
public struct DeviceCodeChallenge: Sendable, Hashable {
    /// The code the person types on the other device (`user_code`).
    public let userCode: String
    /// Where to type it (`verification_uri`, or the older `verification_url`).
    public let verificationURI: URL
    /// The same page with the code in it (`verification_uri_complete`), for a QR code or a
    /// click, when the provider sends it.
    public let verificationURIComplete: URL?
    /// When the code stops working.
    public let expiresOn: Date
    /// How often the library asks whether the person is done (`interval`, 5 s when not given).
    public let interval: Duration
    /// The provider's own sentence, when it sends one (Microsoft Entra ID does).
    public let message: String?

    /// What to tell the person, with the remote-phishing warning of RFC 8628 section 5.4: they
    /// are about to let this device in, and should go on only if they started it themselves. In
    /// the person's language (``WebviewHost/WebviewLocalization``).
    public var instructions: String {
        let arguments = ["link": (verificationURIComplete ?? verificationURI).absoluteString, "code": userCode]
        let open = verificationURIComplete == nil
            ? ShownText.tr("device code", "To sign in, open {link} on your phone or computer and enter the code {code}.", arguments)
            : ShownText.tr("device code", "To sign in, open {link} on your phone or computer (the code {code} is filled in).", arguments)
        let warning = ShownText.tr(
            "device code",
            "You are letting this device sign in as you. Go on only if you started this sign-in yourself, on a device you are using now: someone who sent you this code or link could take over your account.")
        return open + "\n" + warning
    }
}

/// Where the person sees the code: ``DeviceCodeParameters/display``.
public enum DeviceCodeDisplay: Sendable {
    /// The library's window when there is a display and the app's toolkit module registered one
    /// (`registerBuiltInProviders()`), else the terminal.
    case automatic
    /// Standard error: the instructions, a QR code of the link when it fits, the time left
    /// (plain lines, no escape codes, when it is not a terminal).
    case terminal
    /// The library's window (transient for `parent`): the code in large type, selectable, the QR
    /// code, the link, the time left, Cancel (which cancels the sign-in).
    case window(parent: WindowHandle?)
    /// The app shows it itself; called once on the main actor, before the library starts asking
    /// whether the person is done. Cancel with ``PublicClientApplication/cancelCurrentInteractiveSession()``
    /// or the task.
    case app(@MainActor @Sendable (DeviceCodeChallenge) -> Void)
}

/// What ``PublicClientApplication/acquireTokenWithDeviceCode(with:)`` asks for, and where the code shows.
public struct DeviceCodeParameters: Sendable {
    /// The scopes, besides the configuration's default ones.
    public var scopes: [String]
    /// Where the person sees the code.
    public var display: DeviceCodeDisplay
    /// The device authorization endpoint; `nil` uses the discovery document's
    /// `device_authorization_endpoint`.
    public var deviceAuthorizationEndpoint: URL?

    /// How long the sign-in may take, counted from the call: it then ends with `timedOut`.
    /// `nil` (the default): until the code expires (`deviceCodeExpired`).
    public var timeout: Duration?
    /// This call's own steps, on the main actor, in order: every event of every session the call
    /// runs (with its session and view, ``WebviewHost/WebAuthStep``), and never another call's. Set
    /// it to show progress for this sign-in only; `WebAuthSession.observeAll(_:)` and the
    /// `webAuth*` notifications see every session in the process.
    ///
    /// ```swift
    /// parameters.onStep = { step in
    ///     if case .didFinishLoad = step.event { spinner.stop() }
    /// }
    /// ```
    public var onStep: (@MainActor @Sendable (WebAuthStep) -> Void)?

    public init(
        scopes: [String], display: DeviceCodeDisplay = .automatic, deviceAuthorizationEndpoint: URL? = nil, timeout: Duration? = nil
    ) {
        self.scopes = scopes
        self.display = display
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.timeout = timeout
    }
}

/// The device authorization response (RFC 8628 section 3.2).
struct DeviceAuthorizationResponse: Decodable, Sendable {
    var deviceCode: String
    var userCode: String
    var verificationURI: String?
    var verificationURL: String?
    var verificationURIComplete: String?
    var expiresIn: Double
    var interval: Double?
    var message: String?

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURL = "verification_url"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
        case interval
        case message
    }
}
