public import Foundation

/// The one error a web authentication session ends with.
///
/// `code` says what happened; `message` says what a person can do about it. New codes may be
/// added, so switch over `code` with a `default` case.
public struct WebAuthError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What went wrong. A struct, not an enum, so new codes do not break callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        /// A code of your own, for a provider whose failures none of the built-in codes names
        /// (an external provider's `fail` message, a broker's own error). Two codes are equal
        /// when their names are; pick a name the built-in codes do not use.
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The person cancelled in the sign-in window: its Cancel button, Escape, or closing it.
        public static let userCanceled = Code("userCanceled")
        /// The app cancelled the session.
        public static let canceled = Code("canceled")
        /// Another interactive session is running in this process.
        public static let sessionAlreadyInProgress = Code("sessionAlreadyInProgress")
        /// No provider can run the session here (wrong type, not registered, or not available).
        public static let providerUnavailable = Code("providerUnavailable")
        /// The caller's parameters cannot work together, or the redirect URI is malformed.
        public static let invalidParameters = Code("invalidParameters")
        /// A page could not be loaded.
        public static let network = Code("network")
        /// A page's TLS certificate was not trusted; the load was refused (never bypassed).
        public static let tls = Code("tls")
        /// The web content process ended unexpectedly.
        public static let webProcessTerminated = Code("webProcessTerminated")
        /// The person's browser could not be started.
        public static let browserLaunchFailed = Code("browserLaunchFailed")
        /// The session ran longer than its timeout.
        public static let timedOut = Code("timedOut")
        /// The loopback listener for the redirect could not be opened.
        public static let redirectListenerFailed = Code("redirectListenerFailed")
        /// The authorization server answered with an OAuth error (see ``WebAuthError/serverError``).
        public static let server = Code("server")
        /// The callback's `state` differs from the one sent: the response is not ours.
        public static let stateMismatch = Code("stateMismatch")
        /// The callback or a server response could not be understood.
        public static let invalidResponse = Code("invalidResponse")
        /// Silent token acquisition needs the person: no usable refresh token.
        public static let interactionRequired = Code("interactionRequired")
        /// The authorization server answered in a way this user agent cannot receive, such as
        /// `response_mode=form_post` (a POST to the redirect URI) in an embedded web view.
        public static let unsupportedResponseMode = Code("unsupportedResponseMode")
        /// The sign-in needs the person's browser (a passkey, a provider that refuses embedded
        /// views) and could not move there: the app's ``SystemBrowserHandOverPolicy`` is `never`,
        /// it gave no way to build the new request, or no browser can run. ``WebAuthError/handOver``
        /// says why it was needed.
        public static let systemBrowserRequired = Code("systemBrowserRequired")
        /// A page asked for Windows Integrated Authentication (`WWW-Authenticate: Negotiate`,
        /// Kerberos) and the view could not answer it: no valid ticket (none, or expired), an
        /// ephemeral session, or a plain-http host Negotiate may not go to. The message says which.
        public static let integratedAuthenticationUnavailable = Code("integratedAuthenticationUnavailable")
        /// A sign-in server asked for a client certificate (TLS client authentication) and none
        /// could be given: none from the app (``WebviewParameters/clientCertificate``) and none
        /// on the person's tokens, or the token refused the PIN the app gave.
        public static let clientCertificateRequired = Code("clientCertificateRequired")
    }

    /// The OAuth error a server returned (RFC 6749 section 4.1.2.1).
    public struct ServerError: Hashable, Sendable {
        public var error: String
        public var errorDescription: String?
        public var errorURI: String?
        public init(error: String, errorDescription: String? = nil, errorURI: String? = nil) {
            self.error = error
            self.errorDescription = errorDescription
            self.errorURI = errorURI
        }
    }

    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The OAuth error, for `.server`.
    public let serverError: ServerError?
    /// The page or callback URL involved, when there is one.
    public let url: URL?
    /// The error that caused this one (a GLib error, a decoding error...), kept as it was.
    public let underlyingError: (any Error & Sendable)?
    /// For ``Code-swift.struct/systemBrowserRequired``: why the sign-in needed the browser.
    public let handOver: SystemBrowserHandOver?

    public init(
        _ code: Code, _ message: String, url: URL? = nil, serverError: ServerError? = nil,
        underlyingError: (any Error & Sendable)? = nil, handOver: SystemBrowserHandOver? = nil
    ) {
        self.code = code
        // A proxy's URI quoted from GLib, libsoup or the desktop never brings its password here.
        self.message = ProxyURI.redacting(message)
        self.handOver = handOver
        self.url = url
        self.serverError = serverError
        self.underlyingError = underlyingError
    }

    public var description: String {
        var text = "WebAuthError.\(code): \(message)"
        if let underlyingError { text += " (underlying: \(underlyingError))" }
        return ProxyURI.redacting(text)
    }

    public var errorDescription: String? { message }

    /// Whether the session ended because someone cancelled it (the person or the app).
    public var isCancellation: Bool { code == .userCanceled || code == .canceled }
}

extension WebAuthError {
    /// The person left the library's sign-in window: its "Cancel", Escape, the window manager's
    /// close, or the app's window it belongs to going away.
    public static func userCanceled() -> WebAuthError {
        WebAuthError(
            .userCanceled,
            "The sign-in window was closed (Cancel, Escape, the window manager's close or its parent window going away) before sign-in finished.")
    }
    public static func canceled() -> WebAuthError {
        WebAuthError(.canceled, "The app cancelled the sign-in.")
    }
    public static func sessionAlreadyInProgress() -> WebAuthError {
        WebAuthError(
            .sessionAlreadyInProgress,
            "Another sign-in is already in progress in this app; finish or cancel it first.")
    }
    public static func timedOut(after timeout: Duration) -> WebAuthError {
        WebAuthError(
            .timedOut,
            "Sign-in did not finish within \(timeout.formattedSeconds); start it again when ready.")
    }
    /// The server's OAuth error. Its message quotes `error` and `error_description` as one
    /// short line: they come from a page or a response body, so control characters (which would
    /// forge log lines) become spaces and text beyond a few hundred characters is cut; the values
    /// as sent stay in ``serverError``. They are the server's words for the person, so they are
    /// shown (Entra ID's, for one, carry line breaks and trace IDs worth reporting).
    /// The authorization server posted its response to the redirect URI (`response_mode=form_post`),
    /// which an embedded web view cannot receive: it intercepts the redirect as a navigation.
    public static func unsupportedResponseMode(url: URL? = nil) -> WebAuthError {
        WebAuthError(
            .unsupportedResponseMode,
            "The sign-in server sent its answer as a form POST (response_mode=form_post), which the embedded "
                + "web view cannot receive: it takes the redirect as a GET. Ask for response_mode=query (or "
                + "fragment), or sign in with the system browser.",
            url: url)
    }
    /// The sign-in needs the person's browser and cannot move there; `why` ends the sentence.
    public static func systemBrowserRequired(_ handOver: SystemBrowserHandOver, why: String) -> WebAuthError {
        WebAuthError(
            .systemBrowserRequired,
            "This sign-in cannot finish in the app's web view (\(handOver.detail)), and \(why) "
                + "Sign in with the system browser (webviewType .authenticationSession) instead.",
            url: handOver.pageURL, handOver: handOver)
    }
    public static func server(_ serverError: ServerError, url: URL? = nil) -> WebAuthError {
        var message = "The sign-in server refused the request: " + ServerError.oneLine(serverError.error, limit: 100)
        if let description = serverError.errorDescription, !description.isEmpty {
            message += " (\(ServerError.oneLine(description, limit: 400)))"
        }
        return WebAuthError(.server, message + ".", url: url, serverError: serverError)
    }
}

extension WebAuthError.ServerError {
    /// `text` on one line: control, format and separator characters become spaces, runs of
    /// spaces one space, and more than `limit` Unicode scalars end in an ellipsis.
    fileprivate static func oneLine(_ text: String, limit: Int) -> String {
        var line = String.UnicodeScalarView()
        var kept = 0
        for scalar in text.unicodeScalars {
            let category = scalar.properties.generalCategory
            if scalar.properties.isWhitespace || [.control, .format, .lineSeparator, .paragraphSeparator].contains(category) {
                if let last = line.last, last != " " { line.append(" ") }
            } else if kept == limit {
                return String(line) + "…"
            } else {
                line.append(scalar)
                kept += 1
            }
        }
        while line.last == " " { line.removeLast() }
        return String(line)
    }
}

extension Duration {
    var formattedSeconds: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 {
            let minutes = Int(seconds / 60)
            return minutes == 1 ? "1 minute" : "\(minutes) minutes"
        }
        return seconds == 1 ? "1 second" : "\(seconds.formatted()) seconds"
    }
}

extension Double {
    fileprivate func formatted() -> String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
