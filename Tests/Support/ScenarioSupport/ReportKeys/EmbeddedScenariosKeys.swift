// The report keys only EmbeddedScenarios writes (the names in its JSON report).

extension ReportKey where Value == String {
    /// The `Authorization` header the device challenge's SubmitUrl received, "" for none (`pkeyauth`).
    public static var pkeyAuthAnswer: Self { .init("pkeyAuthAnswer") }
    /// The `Cookie` header of the authorization page, of the page on another host, and of the
    /// authorization page in a later session without sign-in cookies (`sign-in-cookies`).
    public static var cookieAtAuthorize: Self { .init("cookieAtAuthorize") }
    public static var cookieElsewhere: Self { .init("cookieElsewhere") }
    public static var cookieLater: Self { .init("cookieLater") }
    /// The sign-in cookie's value, and whether the cookie file holds it: "yes", "no", or why
    /// it could not be told (`sign-in-cookies`).
    public static var signInCookieValue: Self { .init("signInCookieValue") }
    public static var signInCookieOnDisk: Self { .init("signInCookieOnDisk") }
    /// The User-Agent of the first authorization request (`pkeyauth`).
    public static var userAgentAtAuthorize: Self { .init("userAgentAtAuthorize") }
    /// What the forgotten site's page still had (`site-data`: cookie, storage, dbs as a query).
    public static var forgottenSiteReport: Self { .init("forgottenSiteReport") }
    /// What the other site's page still had (`site-data`).
    public static var keptSiteReport: Self { .init("keptSiteReport") }
    /// The web platform probe's results in a bare view of the scenario's process, as JSON (`web-platform`).
    public static var barePlatform: Self { .init("barePlatform") }
    /// The same probe's results as the sign-in page, as JSON (`web-platform`).
    public static var signInPlatform: Self { .init("signInPlatform") }
    public static var appURL: Self { .init("appURL") }
    /// The view's address and title after the app's `go_back` (`app-after-history`; "" when it could not go back).
    public static var uriAfterBack: Self { .init("uriAfterBack") }
    public static var titleAfterBack: Self { .init("titleAfterBack") }
    public static var callerViewURIAfter: Self { .init("callerViewURIAfter") }
    public static var cookieAfterSignOut: Self { .init("cookieAfterSignOut") }
    public static var cookieInSecond: Self { .init("cookieInSecond") }
    public static var cookieSent: Self { .init("cookieSent") }
    public static var dataFolder: Self { .init("dataFolder") }
    public static var errorHandOverReason: Self { .init("errorHandOverReason") }
    public static var handOverDetail: Self { .init("handOverDetail") }
    public static var handOverReason: Self { .init("handOverReason") }
    public static var kind: Self { .init("kind") }
    public static var loginBody: Self { .init("loginBody") }
    public static var lookalikeQuery: Self { .init("lookalikeQuery") }
    public static var mode: Self { .init("mode") }
    public static var pageReport: Self { .init("pageReport") }
    public static var policy: Self { .init("policy") }
    public static var preference: Self { .init("preference") }
    public static var prewarmedBy: Self { .init("prewarmedBy") }
    public static var provider: Self { .init("provider") }
    public static var questionDefault: Self { .init("questionDefault") }
    /// Per moment, with `suffixed(by:)` (custom-view: Before, During, After; app-after: 1s, 6s).
    public static var title: Self { .init("title") }
    public static var trigger: Self { .init("trigger") }
    /// Per moment, with `suffixed(by:)` (custom-view: Before, During, After; app-after: 1s, 6s).
    public static var uri: Self { .init("uri") }
    public static var uriAfter: Self { .init("uriAfter") }
    public static var uriAfterAnswer: Self { .init("uriAfterAnswer") }
    public static var uriAfterBlank: Self { .init("uriAfterBlank") }
    public static var uriAfterBroker: Self { .init("uriAfterBroker") }
    public static var uriAfterCustom: Self { .init("uriAfterCustom") }
    public static var uriAfterOpen: Self { .init("uriAfterOpen") }
    public static var uriWhileGoingOn: Self { .init("uriWhileGoingOn") }
    public static var windowSubtitle: Self { .init("windowSubtitle") }
    public static var windowTitle: Self { .init("windowTitle") }
}

extension ReportKey where Value == Int {
    /// Requests the device challenge's SubmitUrl received (`pkeyauth`).
    public static var pkeyAuthSubmits: Self { .init("pkeyAuthSubmits") }
    /// Requests that reached the endpoint requiring a client certificate (`client-certificate`).
    public static var certAuthRequests: Self { .init("certAuthRequests") }
    /// Requests that reached the second session's endpoint (`client-certificate`, `token-twice`).
    public static var secondCertAuthRequests: Self { .init("secondCertAuthRequests") }
    /// From the second sign-in's move to the certificate endpoint to its outcome (`client-certificate`, `token-then-*`, `two-tokens`).
    public static var secondMilliseconds: Self { .init("secondMilliseconds") }
    public static var appPageInMilliseconds: Self { .init("appPageInMilliseconds") }
    public static var appRequests: Self { .init("appRequests") }
    public static var authorizeRequests: Self { .init("authorizeRequests") }
    public static var browserAuthorizeRequests: Self { .init("browserAuthorizeRequests") }
    public static var callbackHits: Self { .init("callbackHits") }
    public static var callbackRequests: Self { .init("callbackRequests") }
    public static var checkRequests: Self { .init("checkRequests") }
    public static var clickAttempts: Self { .init("clickAttempts") }
    public static var clickStatus: Self { .init("clickStatus") }
    public static var dialogsAfterEnd: Self { .init("dialogsAfterEnd") }
    public static var dialogsBeforeEnd: Self { .init("dialogsBeforeEnd") }
    public static var failCount: Self { .init("failCount") }
    /// Per moment: `.handlers.suffixed(by: "Before")` (custom-view: Before, During, After).
    public static var handlers: Self { .init("handlers") }
    public static var handlersAfter: Self { .init("handlersAfter") }
    public static var handlersBefore: Self { .init("handlersBefore") }
    /// Handlers of the library's on the caller's view when the caller resumed (over those before).
    public static var handlersAtResume: Self { .init("handlersAtResume") }
    public static var handlersDuring: Self { .init("handlersDuring") }
    /// Per moment, with `suffixed(by:)` (app-after: 1s, 6s).
    public static var handlersLeft: Self { .init("handlersLeft") }
    public static var handlersOnView: Self { .init("handlersOnView") }
    /// Per moment, with `suffixed(by:)` (custom-view: Before, During, After).
    public static var height: Self { .init("height") }
    public static var heightAfter: Self { .init("heightAfter") }
    public static var heightBefore: Self { .init("heightBefore") }
    public static var hiddenWindows: Self { .init("hiddenWindows") }
    public static var idpPort: Self { .init("idpPort") }
    public static var libraryToplevelsAfter: Self { .init("libraryToplevelsAfter") }
    public static var libraryToplevelsDuring: Self { .init("libraryToplevelsDuring") }
    public static var loginPosts: Self { .init("loginPosts") }
    public static var lookalikeRequests: Self { .init("lookalikeRequests") }
    public static var maxLibraryToplevels: Self { .init("maxLibraryToplevels") }
    public static var maxPopovers: Self { .init("maxPopovers") }
    public static var maxVisibleToplevels: Self { .init("maxVisibleToplevels") }
    public static var page2Requests: Self { .init("page2Requests") }
    public static var page3Requests: Self { .init("page3Requests") }
    public static var preparedLoadMilliseconds: Self { .init("preparedLoadMilliseconds") }
    public static var redirectPortHits: Self { .init("redirectPortHits") }
    public static var releaseMilliseconds: Self { .init("releaseMilliseconds") }
    public static var reports: Self { .init("reports") }
    /// Per path, with `suffixed(by: path)` (surface: /attachment, /html-attachment, /octet, /anchor).
    public static var requests: Self { .init("requests") }
    public static var resumeCount: Self { .init("resumeCount") }
    public static var screenshotStatus: Self { .init("screenshotStatus") }
    public static var terminalCount: Self { .init("terminalCount") }
    public static var ticks: Self { .init("ticks") }
    public static var tlsServer: Self { .init("tlsServer") }
    public static var tlsServerRequests: Self { .init("tlsServerRequests") }
    public static var toplevelsAfterPrewarm: Self { .init("toplevelsAfterPrewarm") }
    public static var toplevelsAfterRelease: Self { .init("toplevelsAfterRelease") }
    public static var toplevelsAfterSecond: Self { .init("toplevelsAfterSecond") }
    public static var toplevelsBefore: Self { .init("toplevelsBefore") }
    public static var toplevelsBeforeSecond: Self { .init("toplevelsBeforeSecond") }
    public static var viewCallbackHits: Self { .init("viewCallbackHits") }
    public static var viewWidth: Self { .init("viewWidth") }
    public static var visibleAfterPrewarm: Self { .init("visibleAfterPrewarm") }
    public static var visibleToplevels: Self { .init("visibleToplevels") }
    public static var visibleToplevelsAfter: Self { .init("visibleToplevelsAfter") }
    public static var visibleToplevelsDuring: Self { .init("visibleToplevelsDuring") }
    /// Per moment, with `suffixed(by:)` (custom-view: Before, During, After).
    public static var width: Self { .init("width") }
    public static var widthAfter: Self { .init("widthAfter") }
    public static var widthBefore: Self { .init("widthBefore") }
    public static var windowCentreOffset: Self { .init("windowCentreOffset") }
    public static var windowDefaultHeight: Self { .init("windowDefaultHeight") }
    public static var windowDefaultWidth: Self { .init("windowDefaultWidth") }
}

extension ReportKey where Value == Bool {
    public static var adopted: Self { .init("adopted") }
    public static var allOnMainThread: Self { .init("allOnMainThread") }
    public static var appCallAccepted: Self { .init("appCallAccepted") }
    public static var appPrefersDarkAfter: Self { .init("appPrefersDarkAfter") }
    public static var appPrefersDarkBefore: Self { .init("appPrefersDarkBefore") }
    public static var appPrefersDarkDuring: Self { .init("appPrefersDarkDuring") }
    public static var blankFinished: Self { .init("blankFinished") }
    public static var brokerReported: Self { .init("brokerReported") }
    public static var buttonVisible: Self { .init("buttonVisible") }
    public static var callerViewAlive: Self { .init("callerViewAlive") }
    public static var canOpenWindowsAfter: Self { .init("canOpenWindowsAfter") }
    public static var canOpenWindowsBefore: Self { .init("canOpenWindowsBefore") }
    public static var canOpenWindowsDuring: Self { .init("canOpenWindowsDuring") }
    public static var cookieFileExists: Self { .init("cookieFileExists") }
    public static var customReported: Self { .init("customReported") }
    public static var dataFolderExists: Self { .init("dataFolderExists") }
    public static var dialogDefaultIsCancel: Self { .init("dialogDefaultIsCancel") }
    public static var dialogModal: Self { .init("dialogModal") }
    public static var dialogShown: Self { .init("dialogShown") }
    public static var dialogTransientForSignIn: Self { .init("dialogTransientForSignIn") }
    public static var endedBeforeCancel: Self { .init("endedBeforeCancel") }
    public static var endedWhileGoingOn: Self { .init("endedWhileGoingOn") }
    public static var finished: Self { .init("finished") }
    public static var hiddenRealized: Self { .init("hiddenRealized") }
    /// Per moment, with `suffixed(by:)` (custom-view: Before, During, After).
    public static var inDestruction: Self { .init("inDestruction") }
    public static var inDestructionAfter: Self { .init("inDestructionAfter") }
    public static var indicatorVisibleAfterLoad: Self { .init("indicatorVisibleAfterLoad") }
    public static var indicatorVisibleWhileSlow: Self { .init("indicatorVisibleWhileSlow") }
    public static var isLoadingAfter: Self { .init("isLoadingAfter") }
    public static var loadingWhileSlow: Self { .init("loadingWhileSlow") }
    /// Per moment, with `suffixed(by:)` (custom-view: Before, During, After).
    public static var mapped: Self { .init("mapped") }
    public static var notificationsCarryView: Self { .init("notificationsCarryView") }
    public static var openFinished: Self { .init("openFinished") }
    public static var pageEndedSession: Self { .init("pageEndedSession") }
    /// Per moment, with `suffixed(by:)` (custom-view: Before, During, After).
    public static var parentIsBox: Self { .init("parentIsBox") }
    public static var portalOwned: Self { .init("portalOwned") }
    public static var preparedLoaded: Self { .init("preparedLoaded") }
    /// Per round, with `suffixed(by: "\(round)")` (prewarm).
    public static var preparedLoadedAfter: Self { .init("preparedLoadedAfter") }
    public static var questionShown: Self { .init("questionShown") }
    /// Per round, with `suffixed(by: "\(round)")` (prewarm).
    public static var readyAfter: Self { .init("readyAfter") }
    public static var readyAfterPrewarm: Self { .init("readyAfterPrewarm") }
    public static var readyAfterRelease: Self { .init("readyAfterRelease") }
    public static var readyBeforePrewarm: Self { .init("readyBeforePrewarm") }
    /// Per round, with `suffixed(by: "\(round)")` (prewarm).
    public static var readyDuring: Self { .init("readyDuring") }
    public static var sawSignInWindow: Self { .init("sawSignInWindow") }
    public static var slotFree: Self { .init("slotFree") }
    public static var terminalLast: Self { .init("terminalLast") }
    /// Per moment, with `suffixed(by:)` (custom-view: Before, During, After).
    public static var visible: Self { .init("visible") }
    public static var wentOn: Self { .init("wentOn") }
    public static var windowFinalized: Self { .init("windowFinalized") }
    public static var windowGone: Self { .init("windowGone") }
    public static var windowMissing: Self { .init("windowMissing") }
    public static var windowModal: Self { .init("windowModal") }
    public static var windowTransientForParent: Self { .init("windowTransientForParent") }
    public static var windowVisible: Self { .init("windowVisible") }
    /// What `EmbeddedWebviewProvider.useDesktopProxy(in:)` returned for the app's view (`proxy-password`, `view-desktop-proxy`).
    public static var desktopProxyApplied: Self { .init("desktopProxyApplied") }
}

extension ReportKey where Value == [String] {
    /// Each question the certificate sign-in showed, in order: its title, then its texts (`client-certificate`).
    public static var certificateQuestions: Self { .init("certificateQuestions") }
    /// The library's certificate chooser as shown: what was selected, whether it could be accepted (`client-certificate`).
    public static var chooserState: Self { .init("chooserState") }
    /// What the app's client certificate chooser was asked, once per call (`client-certificate`).
    public static var appChooserRequests: Self { .init("appChooserRequests") }
    /// Every main-frame load that failed in the scenario's web views, `<uri>: <domain> <code>: <message>`
    /// (an emission hook: also those the session took care of), for failures' messages.
    public static var viewLoadFailures: Self { .init("viewLoadFailures") }
    /// Each session of `proxy <url> <rounds>` in order, `<name>: <outcome> <code>` (`proxy`).
    public static var routedSessions: Self { .init("routedSessions") }
    /// The questions ProxyAuthentication.ask got, `host:port attempt` (`proxy-password`).
    public static var proxyQuestions: Self { .init("proxyQuestions") }
    /// Each of the library's proxy questions, in order: its title, then its texts; then any dialog
    /// still open (`proxy-password-dialog`).
    public static var proxyDialogs: Self { .init("proxyDialogs") }
    /// What each proxy question was over: "sign-in window" or "other" (`proxy-password-dialog`).
    public static var proxyDialogOverSignInWindow: Self { .init("proxyDialogOverSignInWindow") }
    /// The screen reader's names of the question's fields, GTK 3 only: GTK 4 has no call to read
    /// them, "(none)" there (`proxy-password-dialog`).
    public static var proxyFieldNames: Self { .init("proxyFieldNames") }
    /// The sites `WebAuthSession.clearSiteData` deleted the data of (`site-data`).
    public static var clearedSites: Self { .init("clearedSites") }
    /// Every navigation decision and load event of the caller's view after the caller resumed (`ViewLoadLog`).
    public static var viewLoadsAfterResume: Self { .init("viewLoadsAfterResume") }
    public static var brokerCalls: Self { .init("brokerCalls") }
    public static var built: Self { .init("built") }
    public static var callerViewEvents: Self { .init("callerViewEvents") }
    public static var contextMenusShown: Self { .init("contextMenusShown") }
    public static var dialogButtons: Self { .init("dialogButtons") }
    public static var dialogTexts: Self { .init("dialogTexts") }
    /// The title of every window mapped during the scenario, however briefly (`MappedWindows`).
    public static var windowsMapped: Self { .init("windowsMapped") }
    public static var entries: Self { .init("entries") }
    public static var eventNames: Self { .init("eventNames") }
    public static var filesWithDownload: Self { .init("filesWithDownload") }
    /// Per round, with `prefixed(by: "round\(round).")` (prewarm).
    public static var history: Self { .init("history") }
    public static var homeFiles: Self { .init("homeFiles") }
    public static var launches: Self { .init("launches") }
    public static var launchesAfterEnd: Self { .init("launchesAfterEnd") }
    public static var looseEntries: Self { .init("looseEntries") }
    public static var questionButtons: Self { .init("questionButtons") }
    /// The sign-in window's shown buttons: their labels, "(icon)" for one without a label.
    public static var windowButtons: Self { .init("windowButtons") }
    public static var reports: Self { .init("reports") }
    public static var settingsAfter: Self { .init("settingsAfter") }
    public static var settingsBefore: Self { .init("settingsBefore") }
    public static var settingsDuring: Self { .init("settingsDuring") }
    public static var signalsGainingHandlers: Self { .init("signalsGainingHandlers") }
    public static var toplevelsAfterReleaseTypes: Self { .init("toplevelsAfterReleaseTypes") }
}

// `device-code-window`: the library's window for a device code.
extension ReportKey where Value == String {
    /// What zbarimg read from a screenshot of the window's QR code.
    public static var qrDecoded: Self { .init("qrDecoded") }
    /// What a screen reader is given for the code (GTK 3's ATK name; GTK 4 has no getter).
    public static var codeAccessibleName: Self { .init("codeAccessibleName") }
    /// The text of the label that has the focus when the window opens.
    public static var focusedText: Self { .init("focusedText") }
    /// The time-left line, at first and once the code expired (`suffixed(by: "Expired")`).
    public static var timeLeftText: Self { .init("timeLeftText") }
    /// The window's screenshot, kept for a person to look at.
    public static var screenshot: Self { .init("screenshot") }
}

extension ReportKey where Value == Bool {
    public static var deviceWindowTransientForApp: Self { .init("deviceWindowTransientForApp") }
    public static var deviceWindowModal: Self { .init("deviceWindowModal") }
    public static var codeSelectable: Self { .init("codeSelectable") }
    /// The window is gone after the function `present` returned was called.
    public static var goneAfterClose: Self { .init("goneAfterClose") }
    /// A second window is gone when the app destroyed its parent.
    public static var goneWithParent: Self { .init("goneWithParent") }
}

extension ReportKey where Value == Int {
    /// How often the window called `cancel`: after Escape, after Cancel too, and (a second window)
    /// when its parent was destroyed.
    public static var cancelsAfterEscape: Self { .init("cancelsAfterEscape") }
    public static var cancelsAfterButton: Self { .init("cancelsAfterButton") }
    public static var cancelsWithParent: Self { .init("cancelsWithParent") }
}

extension ReportKey where Value == [String] {
    /// The text of every label in the window, in order.
    public static var windowLabels: Self { .init("windowLabels") }
    /// The header bar's buttons.
    public static var headerButtons: Self { .init("headerButtons") }
}

// `localized-windows`: what a person sees in their language.
extension ReportKey where Value == String {
    /// The `Accept-Language` the sign-in page was asked with.
    public static var acceptLanguage: Self { .init("acceptLanguage") }
    /// The page's `navigator.languages`, comma-separated.
    public static var navigatorLanguages: Self { .init("navigatorLanguages") }
    /// "rtl" or "ltr": the sign-in window's direction, and the question's.
    public static var direction: Self { .init("direction") }
    public static var dialogDirection: Self { .init("dialogDirection") }
}

extension ReportKey where Value == Bool {
    /// The header bar's Cancel is in the right half of the window (mirrored).
    public static var cancelOnTheRight: Self { .init("cancelOnTheRight") }
}

extension ReportKey where Value == [String] {
    /// Every text the library's windows showed: titles, labels, buttons (with mnemonics).
    public static var shownTexts: Self { .init("shownTexts") }
}

// `accessibility`: the sign-in window as a screen reader and a keyboard meet it.
extension ReportKey where Value == String {
    /// atspi_tree.py's JSON: the app's windows over AT-SPI and what has the focus.
    public static var atspiTree: Self { .init("atspiTree") }
    public static var atspiError: Self { .init("atspiError") }
}

extension ReportKey where Value == Bool {
    /// GTK's keyboard focus is in the web view once the window is shown.
    public static var focusInView: Self { .init("focusInView") }
    public static var windowIsActive: Self { .init("windowIsActive") }
}

// `keyboard`: a sign-in by keyboard alone.
extension ReportKey where Value == [String] {
    /// Each key sent and where the focus was after it (`type alice → page:user=alice`).
    public static var keyboardSteps: Self { .init("keyboardSteps") }
}

extension ReportKey where Value == String {
    /// The user name the form sent when Enter submitted it.
    public static var submittedUser: Self { .init("submittedUser") }
}

extension ReportKey where Value == Bool {
    /// Whether the caller's view has its own user agent again after the session (`pkeyauth`).
    public static var callerUserAgentKept: Self { .init("callerUserAgentKept") }
}

// Windows Integrated Authentication (`negotiate`, NegotiateScenarios.swift).
extension ReportKey where Value == String {
    /// `SOUP_GSSAPI_TRUSTED_URIS` after `allowNegotiate(to:)`, as WebKit's network process inherits it.
    public static var negotiateTrustedURIs: Self { .init("negotiateTrustedURIs") }
    /// The schemes (`WebKitAuthenticationScheme` numbers, comma-separated) the test's `authenticate` handler saw.
    public static var negotiateAsked: Self { .init("negotiateAsked") }
}

extension ReportKey where Value == Int {
    /// Toplevel windows added while WebKit's credentials dialog showed (`negotiate ... dialog`; 0: inside the view).
    public static var negotiateDialogToplevels: Self { .init("negotiateDialogToplevels") }
}

extension ReportKey where Value == [String] {
    /// What `allowNegotiate(to:)` answered to bad origins and to a call after the first window (`negotiate ... refusals`).
    public static var negotiateRefusals: Self { .init("negotiateRefusals") }
}

// `isolated-settings`: what a task saw, each under a prefix (`before.`, `first.set.`, `second.detached.`...).
extension ReportKey where Value == String {
    /// `EmbeddedWebviewProvider.applicationID` ("nil" for none).
    public static var settingApplicationID: Self { .init("settingApplicationID") }
    /// `ToolkitIntegration.current`'s name ("nil" for none).
    public static var settingToolkit: Self { .init("settingToolkit") }
}

extension ReportKey where Value == [String] {
    /// `EmbeddedWebviewProvider.allowedPermissions`, sorted (also the process's after `surface permissions-click-isolated`).
    public static var settingPermissions: Self { .init("settingPermissions") }
}

extension ReportKey where Value == Bool {
    /// `EmbeddedWebviewProvider.followsDesktopColorScheme`.
    public static var settingFollowsColorScheme: Self { .init("settingFollowsColorScheme") }
}

// `webauthn` (WebAuthnScenarios.swift).
extension ReportKey where Value == String {
    /// What the page reported, by name (`ready`, `created`, `got`, `error`, `frame`): a JSON object of JSON texts.
    public static var webAuthnReports: Self { .init("webAuthnReports") }
    /// The page's origin, as its clientDataJSON must name it.
    public static var webAuthnOrigin: Self { .init("webAuthnOrigin") }
}

extension ReportKey where Value == [String] {
    /// The challenges of the page's `create` and `get`, base64url.
    public static var webAuthnChallenges: Self { .init("webAuthnChallenges") }
    /// What the scenario did, in order (a key press and xdotool's status).
    public static var webAuthnSteps: Self { .init("webAuthnSteps") }
}

extension ReportKey where Value == [String] {
    /// The caller view's back/forward list when the caller resumed, and after the app's own page
    /// came in: the back items' addresses, then `current <address>` (`app-after-history`).
    public static var historyAtResume: Self { .init("historyAtResume") }
    public static var historyAfterAppPage: Self { .init("historyAfterAppPage") }
}
