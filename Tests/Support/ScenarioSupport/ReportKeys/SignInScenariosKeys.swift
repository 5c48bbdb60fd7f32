// The report keys only SignInScenarios writes (the names in its JSON report).

extension ReportKey where Value == String {
    /// What `signOut` did at the identity provider (`sign-out`): signedOut, failed <code>...
    public static var signOutOutcome: Self { .init("signOutOutcome") }
    public static var browserCodeChallenge: Self { .init("browserCodeChallenge") }
    public static var browserNonce: Self { .init("browserNonce") }
    public static var browserRedirectURI: Self { .init("browserRedirectURI") }
    public static var browserState: Self { .init("browserState") }
    public static var firstAuthorizationURL: Self { .init("firstAuthorizationURL") }
    public static var firstCodeChallenge: Self { .init("firstCodeChallenge") }
    public static var firstNonce: Self { .init("firstNonce") }
    public static var firstRedirectURI: Self { .init("firstRedirectURI") }
    public static var firstState: Self { .init("firstState") }
    public static var idTokenNonce: Self { .init("idTokenNonce") }
    public static var idTokenSubject: Self { .init("idTokenSubject") }
    public static var issuer: Self { .init("issuer") }
    public static var message: Self { .init("message") }
    public static var name: Self { .init("name") }
    public static var renewedSubject: Self { .init("renewedSubject") }
    public static var replayAnswer: Self { .init("replayAnswer") }
    public static var subject: Self { .init("subject") }
    public static var username: Self { .init("username") }
    /// The account the device-code sign-in gave (`through-proxy`).
    public static var deviceUsername: Self { .init("deviceUsername") }
}

extension ReportKey where Value == Int {
    /// How many times the app (or, with SIGNIN_PROXY_DIALOG, the library's dialog) asked for the
    /// proxy's password (`through-proxy`).
    public static var proxyAsks: Self { .init("proxyAsks") }
    public static var accessTokenLength: Self { .init("accessTokenLength") }
}

extension ReportKey where Value == Bool {
    /// `signOut` removed the account's tokens (`sign-out`).
    public static var tokensRemoved: Self { .init("tokensRemoved") }
    public static var hasRefreshToken: Self { .init("hasRefreshToken") }
    public static var renewedAccessTokenDiffers: Self { .init("renewedAccessTokenDiffers") }
    public static var viewStillInWindow: Self { .init("viewStillInWindow") }
}

extension ReportKey where Value == [String] {
    /// The usernames the app lists after the sign-out (`sign-out`).
    public static var accountsAfter: Self { .init("accountsAfter") }
    public static var idTokenAudience: Self { .init("idTokenAudience") }
    public static var providerKinds: Self { .init("providerKinds") }
    public static var scopes: Self { .init("scopes") }
    public static var titles: Self { .init("titles") }
}

// `device-code-window` (issue 25).
extension ReportKey where Value == Bool {
    /// The library's device-code window appeared over the app's window.
    public static var deviceWindowShown: Self { .init("deviceWindowShown") }
    /// It was gone once the sign-in ended.
    public static var deviceWindowGone: Self { .init("deviceWindowGone") }
}

extension ReportKey where Value == String {
    /// What the phone's approval at Glewlwyd answered (`LOCATION=...`).
    public static var approval: Self { .init("approval") }
}

extension ReportKey where Value == Int {
    /// Seconds from the person's answer to the end of `acquireTokenWithDeviceCode`.
    public static var secondsToEnd: Self { .init("secondsToEnd") }
}

extension ReportKey where Value == [String] {
    /// Each notification with its page's address (`DidStartLoad 127.0.0.1:8080/api/oidc/auth`),
    /// for a failure's message; `notifications` has the bare names.
    public static var loads: Self { .init("loads") }
}

extension ReportKey where Value == Int {
    /// Resident memory (kB) after 5 sign-ins, and after all of them (`rss-sign-ins`).
    public static var rssAfterWarmUp: Self { .init("rssAfterWarmUp") }
    public static var rssAfterAll: Self { .init("rssAfterAll") }
}

extension ReportKey where Value == [String] {
    /// The texts of the library's proxy dialogs, in order (`through-proxy` with SIGNIN_PROXY_DIALOG).
    public static var proxyDialogTexts: Self { .init("proxyDialogTexts") }
}

// `security-key` (issue 42).
extension ReportKey where Value == Int {
    /// The Return key presses the scenario sent to the profile page's "New component" button.
    public static var keyPresses: Self { .init("keyPresses") }
}
