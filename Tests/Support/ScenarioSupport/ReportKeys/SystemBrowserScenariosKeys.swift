// The report keys only SystemBrowserScenarios writes (the names in its JSON report).

extension ReportKey where Value == String {
    public static var browserFinalBody: Self { .init("browserFinalBody") }
    /// The `Content-Language` of the browser's last page.
    public static var browserFinalContentLanguage: Self { .init("browserFinalContentLanguage") }
    public static var browserFinalURL: Self { .init("browserFinalURL") }
    public static var browserLaunchedWith: Self { .init("browserLaunchedWith") }
    public static var browserStartupID: Self { .init("browserStartupID") }
    public static var connectNotAnApp: Self { .init("connectNotAnApp") }
    public static var connectRegisteredWithoutOpen: Self { .init("connectRegisteredWithoutOpen") }
    public static var connectRegisteredWithoutOpenMessage: Self { .init("connectRegisteredWithoutOpenMessage") }
    public static var desktopFile: Self { .init("desktopFile") }
    public static var execLine: Self { .init("execLine") }
    public static var firstHopLocation: Self { .init("firstHopLocation") }
    public static var handlerPath: Self { .init("handlerPath") }
    public static var installError: Self { .init("installError") }
    public static var openedURI: Self { .init("openedURI") }
    public static var preparedRedirectURI: Self { .init("preparedRedirectURI") }
    public static var requestedRedirectURI: Self { .init("requestedRedirectURI") }
    public static var secondInstanceURI: Self { .init("secondInstanceURI") }
    public static var serverError: Self { .init("serverError") }
    public static var serverErrorDescription: Self { .init("serverErrorDescription") }
}

extension ReportKey where Value == Int {
    public static var applicationsMode: Self { .init("applicationsMode") }
    public static var browserFinalStatus: Self { .init("browserFinalStatus") }
    public static var burstAnswered: Self { .init("burstAnswered") }
    public static var busyPort: Self { .init("busyPort") }
    public static var dataHomeMode: Self { .init("dataHomeMode") }
    public static var entryMode: Self { .init("entryMode") }
    public static var entryModeAfterReinstall: Self { .init("entryModeAfterReinstall") }
    public static var fdAfter: Self { .init("fdAfter") }
    public static var fdBaseline: Self { .init("fdBaseline") }
    public static var firstHopPathLength: Self { .init("firstHopPathLength") }
    public static var firstHopSecondStatus: Self { .init("firstHopSecondStatus") }
    public static var firstHopStatus: Self { .init("firstHopStatus") }
    public static var foreignHostCallback: Self { .init("foreignHostCallback") }
    public static var foreignHostMalformedCallback: Self { .init("foreignHostMalformedCallback") }
    public static var gioStatus: Self { .init("gioStatus") }
    public static var guessedHopStatus: Self { .init("guessedHopStatus") }
    public static var handlersAfterConnect: Self { .init("handlersAfterConnect") }
    public static var handlersAfterDisconnect: Self { .init("handlersAfterDisconnect") }
    public static var heldClosedByListener: Self { .init("heldClosedByListener") }
    public static var hugeBodyCallbackStatus: Self { .init("hugeBodyCallbackStatus") }
    public static var hugeBodyOtherPathStatus: Self { .init("hugeBodyOtherPathStatus") }
    public static var hugeHeaderAlone: Self { .init("hugeHeaderAlone") }
    public static var hugeHeaderStatus: Self { .init("hugeHeaderStatus") }
    public static var listenerPort: Self { .init("listenerPort") }
    public static var localhostNameCallback: Self { .init("localhostNameCallback") }
    public static var malformedOtherPath: Self { .init("malformedOtherPath") }
    public static var malformedOtherPathQuery: Self { .init("malformedOtherPathQuery") }
    public static var noHostCallback: Self { .init("noHostCallback") }
    public static var opened: Self { .init("opened") }
    public static var redirectPort: Self { .init("redirectPort") }
    public static var secondInstanceCount: Self { .init("secondInstanceCount") }
    public static var secondInstanceOpenedHere: Self { .init("secondInstanceOpenedHere") }
    public static var secondInstanceStatus: Self { .init("secondInstanceStatus") }
    public static var slowBytesSent: Self { .init("slowBytesSent") }
}

extension ReportKey where Value == Double {
    public static var elapsedSeconds: Self { .init("elapsedSeconds") }
    public static var secondInstanceSeconds: Self { .init("secondInstanceSeconds") }
    public static var timeoutSeconds: Self { .init("timeoutSeconds") }
}

extension ReportKey where Value == Bool {
    public static var browserFinished: Self { .init("browserFinished") }
    public static var connectedAfterDisconnect: Self { .init("connectedAfterDisconnect") }
    public static var firstHopFound: Self { .init("firstHopFound") }
    public static var firstHopNoReferrer: Self { .init("firstHopNoReferrer") }
    public static var firstHopNoStore: Self { .init("firstHopNoStore") }
    public static var firstInstanceIsRemote: Self { .init("firstInstanceIsRemote") }
    public static var halfClosedPartialLineClosed: Self { .init("halfClosedPartialLineClosed") }
    public static var handOverAfterEnd: Self { .init("handOverAfterEnd") }
    public static var handOverBeforePresent: Self { .init("handOverBeforePresent") }
    public static var handOverOtherPath: Self { .init("handOverOtherPath") }
    public static var handOverOtherScheme: Self { .init("handOverOtherScheme") }
    public static var handOverWithoutSession: Self { .init("handOverWithoutSession") }
    public static var handlesOpenAfterConnect: Self { .init("handlesOpenAfterConnect") }
    public static var listenerRefusedAfterEnd: Self { .init("listenerRefusedAfterEnd") }
    public static var openWithoutSessionSurvived: Self { .init("openWithoutSessionSurvived") }
    public static var portClosedAfterOutcome: Self { .init("portClosedAfterOutcome") }
    public static var runningAfterWrongURIs: Self { .init("runningAfterWrongURIs") }
    public static var secondInstanceIsRemote: Self { .init("secondInstanceIsRemote") }
}

extension ReportKey where Value == [String] {
    public static var browserRequests: Self { .init("browserRequests") }
    public static var callbackAnswers: Self { .init("callbackAnswers") }
    public static var checks: Self { .init("checks") }
    public static var failedChecks: Self { .init("failedChecks") }
    public static var handlerArguments: Self { .init("handlerArguments") }
    public static var loginRequests: Self { .init("loginRequests") }
    public static var openedURIs: Self { .init("openedURIs") }
    public static var rows: Self { .init("rows") }
}
