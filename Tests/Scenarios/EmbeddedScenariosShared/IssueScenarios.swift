// Scenarios for what real pages, hostile processes and app code do to a session (issue 8):
// popups, pages that go on after the end, foreign schemes, private data, form_post, and the
// terminal-outcome matrix. Each runs in the library's window ("window") or a caller's view ("view").
import CGLib
#if WEBKITGTK_6
import CWebKitGTK4
#else
import CWebKitGTK3
#endif
import Foundation
import GLibSupport
import ScenarioSupport
import WebviewHost

@MainActor
extension EmbeddedScenarios {
    static let page: Scenario = { arguments in try await pageScenario(mode: arguments[0], kind: arguments[1]) }
    static let outcome: Scenario = { arguments in try await outcomeScenario(mode: arguments[0], kind: arguments[1]) }
    static let schemes: Scenario = { arguments in try await schemesScenario(mode: arguments[0], kind: arguments[1]) }
    static let privateData: Scenario = { arguments in try await privateDataScenario(existing: arguments.first == "existing") }
}

/// An auto-submitting POST form to `action` (what `response_mode=form_post` answers with).
func formPostPage(action: String, fields: [(String, String)]) -> String {
    let inputs = fields.map { "<input type='hidden' name='\($0.0)' value='\($0.1)'>" }.joined()
    return "<!doctype html><html><body onload='document.forms[0].submit()'><form method='post' action='\(action)'>\(inputs)</form></body></html>"
}

// MARK: - Pages

/// A flag the test server's routes read on the main actor (set, say, once the session's outcome is in).
@MainActor
final class RouteFlag {
    var value = false
}

/// One page behaviour, in the library's window or a caller's view. The redirect port's listener
/// counts every request that reaches it (`redirectPortHits`); `/callback` ones are `callbackHits`.
@MainActor
func pageScenario(mode: String, kind: String) async throws -> ScenarioReport {
    let surface = Surface(mode)
    let callback = try callbackListener()
    let idp = try TestServer()
    let redirect = callback.url("/callback")
    let code = "\(redirect)?code=\(kind)&state=xyz"
    var facts = ScenarioReport()
    facts[.mode] = mode
    facts[.kind] = kind
    var parameters = surface.parameters()
    var authorizationURL = idp.url("/authorize")
    /// The path of a page showing the session went on (the page did not end it).
    var goesOnTo: String?
    /// How long to keep watching after the outcome (pages that act late).
    var watchAfter: Duration = .milliseconds(300)
    /// Whether the outcome is in (pages that go on after the end ask the server for it).
    let sessionEnded = RouteFlag()
    idp.route("/page2") { _ in .html(Pages.plain("Page two")) }
    if arguments(kind, hasPrefix: "caller-allows-popups") { surface.setCallerCanOpenWindows(true) }

    switch kind {
    case "popup-timer-redirect", "caller-allows-popups-redirect":
        idp.route("/authorize") { _ in .html(Pages.scripted("Popup", "setTimeout(() => window.open('\(code)'), 200)")) }
    case "popup-timer-page":
        idp.route("/authorize") { _ in .html(Pages.scripted("Popup", "setTimeout(() => window.open('/page2'), 200)")) }
        goesOnTo = "/page2"
    case "blank-click-redirect":
        idp.route("/authorize") { _ in
            .html(Pages.scripted(
                "Blank", "setTimeout(() => document.getElementById('a').click(), 200)",
                body: "<a id='a' target='_blank' href='\(code)'>continue</a>"))
        }
    case "blank-click-page":
        idp.route("/authorize") { _ in
            .html(Pages.scripted(
                "Blank", "setTimeout(() => document.getElementById('a').click(), 200)",
                body: "<a id='a' target='_blank' href='/page2'>continue</a>"))
        }
        goesOnTo = "/page2"
    case "meta-refresh":
        idp.route("/authorize") { _ in
            .html("<html><head><meta http-equiv='refresh' content='0;url=\(code)'></head><body>Redirecting</body></html>")
        }
    case "interstitial":
        // The query names the redirect URI; the page is not the redirect and goes on.
        idp.route("/authorize") { _ in .redirect(idp.url("/continue") + "?redirect_uri=" + encoded(redirect) + "&state=xyz") }
        idp.route("/continue") { _ in .html(Pages.scripted("Continue", "setTimeout(() => { location.href = '/page2' }, 200)")) }
        goesOnTo = "/page2"
    case "sibling":
        callback.route("/callbackX") { _ in .html(Pages.plain("Sibling")) }
        idp.route("/authorize") { _ in
            .html(Pages.scripted("Sibling", "setTimeout(() => { location.href = '\(callback.url("/callbackX"))?code=sibling&state=xyz' }, 200)"))
        }
        goesOnTo = "/callbackX"
    case "dot-segment":
        callback.route("/x") { _ in .html(Pages.plain("Dot segment")) }
        idp.route("/authorize") { _ in
            .html(Pages.scripted("Dots", "setTimeout(() => { location.href = '\(callback.url("/callback/../x"))?code=dots&state=xyz' }, 200)"))
        }
        goesOnTo = "/x"
    case "iframe":
        idp.route("/authorize") { _ in .html(Pages.plain("Framed", body: "<iframe src='/frame'></iframe>")) }
        idp.route("/frame") { _ in .html(Pages.scripted("Frame", "setTimeout(() => { location.href = '\(code)' }, 300)")) }
    case "foreign-scheme":
        idp.route("/authorize") { _ in
            .html(Pages.scripted("Scheme", "setTimeout(() => { location.href = 'wvh-test-scheme://open?x=1' }, 200)"))
        }
    case "slow-cancel":
        idp.route("/authorize") { _ in .html(Pages.scripted("Slow", "location.href = '\(code)'"), delay: .milliseconds(2000)) }
        watchAfter = .milliseconds(3000)
    case "tls":
        let server = try TestServer(certificate: try Probes.selfSignedCertificate())
        server.route("/authorize") { _ in .html(Pages.scripted("Must never show", "location.href = '\(code)'")) }
        authorizationURL = server.url("/authorize")
        facts[.tlsServer] = server.port
        withExtendedLifetime(server) {}
    case "form-post":
        idp.route("/authorize") { _ in .html(formPostPage(action: redirect, fields: [("code", "posted"), ("state", "xyz")])) }
        watchAfter = .milliseconds(1000)
    case "late-nav-cancel", "late-nav-timeout", "late-popup-cancel":
        // The page goes on only after the session ended, however slow the machine: it asks the
        // server every 100 ms whether to go, and the server says so once the outcome is in.
        if kind == "late-nav-timeout" { parameters.timeout = .seconds(1) }
        let goOn = kind == "late-popup-cancel" ? "window.open('\(code)')" : "location.href = '\(code)'"
        idp.route("/authorize") { _ in
            .html(Pages.scripted(
                "Late",
                "(function ask() { fetch('/go').then(r => r.text()).then(t => { if (t === 'go') { \(goOn) } else { setTimeout(ask, 100) } }, () => setTimeout(ask, 100)) })()"))
        }
        idp.route("/go") { _ in .html(sessionEnded.value ? "go" : "wait") }
        watchAfter = .milliseconds(1500)
    default:
        return ScenarioReport(error: "unknown page kind \(kind)")
    }

    facts[.canOpenWindowsBefore] = surface.callerCanOpenWindows
    let run = SessionRun(redirectURI: redirect, parameters: parameters, authorizationURL: authorizationURL)
    // What a caller's view goes through (loads, failures its other handlers let through, ended
    // processes), for a failed expectation's message.
    let viewWatch = SignalConnections()
    var viewEvents: [String] = []
    if let view = surface.callerView {
        viewWatch.connect(view, "load-changed", .enumValue { event in viewEvents.append("load-\(event) \(Probes.uri(of: view))") })
        viewWatch.connect(view, "load-failed", .loadFailed { _, uri, error in
            viewEvents.append("failed \(uri): \(error?.message ?? "")")
            return false
        })
        viewWatch.connect(view, "web-process-terminated", .enumValue { reason in viewEvents.append("terminated \(reason)") })
    }
    switch kind {
    case "slow-cancel":
        _ = await run.recorder.wait { $0.name == "didStartLoad" }
        await ScenarioHost.idle(.milliseconds(400))
        run.session.cancel()
    case "late-nav-cancel", "late-popup-cancel":
        _ = await run.recorder.waitForFinish(path: "/authorize")
        run.session.cancel()
    case "late-nav-timeout":
        _ = await ScenarioHost.wait { run.result != nil }
    default:
        if let goesOnTo {
            facts[.wentOn] = await run.recorder.waitForFinish(path: goesOnTo)
            if let view = run.webview { facts[.uriWhileGoingOn] = Probes.uri(of: view) }
            facts[.libraryToplevelsDuring] = surface.libraryToplevels
            facts[.canOpenWindowsDuring] = surface.callerCanOpenWindows
            facts[.endedWhileGoingOn] = run.result != nil
            run.session.cancel()
        } else if kind == "foreign-scheme" {
            _ = await run.recorder.waitForFinish(path: "/authorize")
            await ScenarioHost.idle(.milliseconds(1000))
            if let view = run.webview { facts[.uriWhileGoingOn] = Probes.uri(of: view) }
            facts[.endedWhileGoingOn] = run.result != nil
            run.session.cancel()
        } else {
            // The page is to end the session by itself: wait for that, as long as a loaded machine needs.
            facts[.pageEndedSession] = await ScenarioHost.wait { run.result != nil }
            run.session.cancel()
        }
    }
    let result = try await run.outcome(settle: .zero)
    sessionEnded.value = true
    await ScenarioHost.idle(watchAfter)
    facts.merge(run.facts(result))
    facts[.callbackHits] = callback.requests(to: "/callback").count
    facts[.redirectPortHits] = callback.requests.count
    facts[.page2Requests] = idp.requests(to: "/page2").count
    viewWatch.disconnectAll()
    facts[.callerViewEvents] = viewEvents
    facts[.releaseMilliseconds] = await surface.waitForRelease()
    facts[.handlersLeft] = surface.handlersLeft
    facts[.libraryToplevelsAfter] = surface.libraryToplevels
    facts[.canOpenWindowsAfter] = surface.callerCanOpenWindows
    if let view = surface.callerView { facts[.callerViewURIAfter] = Probes.uri(of: view) }
    return facts
}

private func arguments(_ kind: String, hasPrefix prefix: String) -> Bool { kind.hasPrefix(prefix) }

// MARK: - Terminal outcomes

/// One way a session ends. Reports the outcome, the events, whether the slot is free, whether
/// the library's window is gone, the handlers left on a caller's view, and the redirect port's hits.
@MainActor
func outcomeScenario(mode: String, kind: String) async throws -> ScenarioReport {
    let surface = Surface(mode)
    let callback = try callbackListener()
    let idp = try TestServer()
    let redirect = callback.url("/callback")
    var parameters = surface.parameters()
    var authorizationURL = idp.url("/authorize")
    let pending = Pages.plain("Sign in, please")
    var tlsServer: TestServer?
    switch kind {
    case "success":
        idp.route("/authorize") { _ in .redirect(redirect + "?code=ok&state=xyz") }
    case "duplicate-redirect":
        idp.route("/authorize") { _ in
            .html(Pages.scripted(
                "Twice",
                "setTimeout(() => { location.href = '\(redirect)?code=one&state=xyz'; location.href = '\(redirect)?code=two&state=xyz' }, 200)",
                body: "<iframe src='/frame'></iframe>"))
        }
        idp.route("/frame") { _ in .html(Pages.scripted("Frame", "setTimeout(() => { location.href = '\(redirect)?code=three&state=xyz' }, 200)")) }
    case "late-redirect":
        idp.route("/authorize") { _ in
            .html(Pages.scripted(
                "Late",
                "setTimeout(() => { location.href = '\(redirect)?code=first&state=xyz' }, 200);"
                    + "setTimeout(() => { location.href = '\(redirect)?code=late&state=xyz' }, 600)"))
        }
    case "state-mismatch":
        idp.route("/authorize") { _ in .redirect(redirect + "?code=ok&state=WRONG") }
    case "oauth-error":
        idp.route("/authorize") { _ in .redirect(redirect + "?error=access_denied&error_description=no&state=xyz") }
    case "network":
        let dead = try TestServer()
        authorizationURL = dead.url("/authorize")
        dead.close()
    case "tls":
        let server = try TestServer(certificate: try Probes.selfSignedCertificate())
        server.route("/authorize") { _ in .html(pending) }
        authorizationURL = server.url("/authorize")
        tlsServer = server
    case "timeout":
        parameters.timeout = .seconds(1)
        idp.route("/authorize") { _ in .html(pending) }
    default:  // window-closed, cancel-main, cancel-thread, task-cancel, web-process
        idp.route("/authorize") { _ in .html(pending) }
    }
    let run = SessionRun(redirectURI: redirect, parameters: parameters, authorizationURL: authorizationURL)
    var sawSignInWindow = false
    _ = await ScenarioHost.wait {
        sawSignInWindow = sawSignInWindow || Probes.toplevelCount(titled: "Sign in to Test IdP") > 0
        return run.result != nil || sawSignInWindow
    }
    if ["window-closed", "cancel-main", "cancel-thread", "task-cancel", "web-process", "view-destroyed"].contains(kind) {
        guard await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview else {
            return run.recorder.pageNeverLoaded()
        }
        switch kind {
        case "window-closed":
            if let callerWindow = surface.callerWindow {
                // A caller's view has no window of ours: the app hides the window holding its view
                // (its sign-in pane) and cancels.
                gtk_widget_set_visible(wvh_widget(callerWindow), 0)
                run.session.cancel()
            } else {
                if let window = Toolkit.window(of: view) { gtk_window_close(wvh_window(window)) }
            }
        case "view-destroyed":
            // The app destroys the window holding its view, and the view with it, and does nothing else.
            surface.destroyCallerWindow()
        case "cancel-main": run.session.cancel()
        case "cancel-thread":
            let session = run.session
            Thread.detachNewThread { session.cancel() }
        case "task-cancel": run.cancelTask()
        default: webkit_web_view_terminate_web_process(wvh_web_view(view))
        }
    }
    let result = try await run.outcome(settle: .milliseconds(1200))
    var facts = run.facts(result)
    let names = run.recorder.names
    facts[.terminalLast] = 
        run.recorder.terminalCount == 1 && (names.last == "didComplete" || names.last == "didFail")
    facts[.slotFree] = await Surface.slotIsFree(redirectURI: redirect)
    // Destroyed, not just hidden: a destroyed toplevel leaves GTK's list of toplevels.
    facts[.windowGone] = Probes.toplevelCount(titled: "Sign in to Test IdP") == 0 && surface.libraryToplevels == 0
    facts[.sawSignInWindow] = sawSignInWindow
    facts[.releaseMilliseconds] = await surface.waitForRelease()
    facts[.handlersLeft] = surface.handlersLeft
    if surface.isCallerView {
        // A destroyed view has no handler left; one still alive (held by someone) is counted.
        facts[.handlersOnView] = surface.callerView.map { SignalInspection.handlerCount(on: $0) } ?? 0
        facts[.callerViewAlive] = surface.callerView != nil
    }
    facts[.redirectPortHits] = callback.requests.count
    if let tlsServer { facts[.tlsServerRequests] = tlsServer.requests.count }
    return facts
}

// MARK: - Foreign schemes

/// The page navigates to `mailto:` (from a timer, or after a gesture); the test desktop's
/// handler for `mailto` records each launch in `$LAUNCH_LOG`.
@MainActor
func schemesScenario(mode: String, kind: String) async throws -> ScenarioReport {
    let surface = Surface(mode)
    let callback = try callbackListener()
    let idp = try TestServer()
    let target = "mailto:someone@example.com"
    let policy: ExternalSchemePolicy =
        switch kind {
        case "allowed": .allow(["mailto"])
        case "refuse-all": .refuseAll
        case "allowed-no-ask": .allow(["other"], askingForOthers: false)
        default: .ask
        }
    let timer = kind == "timer"
    idp.route("/authorize") { _ in
        .html(Pages.scripted("Start", timer ? "setTimeout(() => { location.href = '\(target)' }, 300)" : ""))
    }
    let run = SessionRun(
        redirectURI: callback.url("/callback"), parameters: surface.parameters(externalSchemes: policy),
        authorizationURL: idp.url("/authorize"))
    guard await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview else {
        return run.recorder.pageNeverLoaded()
    }
    var facts = ScenarioReport()
    facts[.mode] = mode
    facts[.kind] = kind
    if !timer {
        // evaluate_javascript runs with a user gesture: exactly what a click on a link gives.
        Probes.evaluate("location.href = '\(target)'", in: view)
    }
    // A question that is to come gets as long as a loaded machine needs; one that must not come,
    // 3 s (the page's navigation is handled within a main-loop turn or two of coming).
    let asks = mode == "window" && ["gesture-open", "gesture-cancel", "dialog-end"].contains(kind)
    _ = await ScenarioHost.wait(upTo: asks ? Patience.event : .seconds(3)) { Probes.visibleDialog() != nil }
    let dialog = Probes.visibleDialog()
    facts[.dialogShown] = dialog != nil
    if let dialog {
        facts[.dialogTexts] = Probes.labelTexts(in: dialog)
        let signInWindow = Toolkit.window(of: view)
        facts[.dialogTransientForSignIn] = 
            gtk_window_get_transient_for(wvh_window(dialog)).map { UnsafeMutableRawPointer($0) } == signInWindow
        facts[.dialogModal] = gtk_window_get_modal(wvh_window(dialog)) != 0
        facts[.dialogButtons] = Probes.buttonLabels(in: dialog)
        facts[.dialogDefaultIsCancel] = Probes.defaultButtonLabel(in: dialog) == "_Cancel"
        if let seconds = ProcessInfo.processInfo.environment["SCREENSHOT_SECONDS"].flatMap(Int.init) {
            await ScenarioHost.idle(.seconds(seconds))
        }
        switch kind {
        case "gesture-open": Probes.clickButton(labelled: "_Open", in: dialog)
        case "gesture-cancel": Probes.clickButton(labelled: "_Cancel", in: dialog)
        default: break  // "dialog-end": the session ends while the dialog is up
        }
    }
    // GIO starts the handler in the background: a launch that is not coming waits out 5 s; one
    // that the policy lets through gets up to 15 s on a loaded machine (the wait ends when it comes).
    let launchComes = ["gesture-open", "allowed"].contains(kind)
    _ = await ScenarioHost.wait(upTo: launchComes ? Patience.event : .seconds(5)) { !launches().isEmpty }
    facts[.launches] = launches()
    facts[.uriAfterAnswer] = Probes.uri(of: view)
    facts[.endedBeforeCancel] = run.result != nil
    facts[.dialogsBeforeEnd] = Probes.visibleDialog() == nil ? 0 : 1
    run.session.cancel()
    let result = try await run.outcome()
    facts.merge(run.facts(result))
    facts[.dialogsAfterEnd] = Probes.visibleDialog() == nil ? 0 : 1
    facts[.launchesAfterEnd] = launches()
    facts[.releaseMilliseconds] = await surface.waitForRelease()
    facts[.handlersLeft] = surface.handlersLeft
    facts[.callbackHits] = callback.requests.count
    return facts
}

/// The URIs the test desktop's handler was started with.
func launches() -> [String] {
    guard let log = ProcessInfo.processInfo.environment["LAUNCH_LOG"],
        let text = try? String(contentsOfFile: log, encoding: .utf8)
    else { return [] }
    return text.split(separator: "\n").map(String.init)
}

// MARK: - Private data

/// A persistent-mode session that sets a cookie, under umask 000; then every entry under the
/// data and cache folders with its mode. `existing`: the folders were there before, 0755.
@MainActor
func privateDataScenario(existing: Bool) async throws -> ScenarioReport {
    umask(0)
    // The app's folder: no GApplication here, so the program name (GTK 4 sets no prgname).
    let app = ProcessInfo.processInfo.processName
    let dataRoot = String(cString: g_get_user_data_dir()) + "/" + app
    let cacheRoot = String(cString: g_get_user_cache_dir()) + "/" + app
    if existing {
        for folder in [dataRoot + "/webview-host", cacheRoot + "/webview-host"] {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            _ = FileManager.default.createFile(atPath: folder + "/old-file", contents: Data("x".utf8), attributes: [.posixPermissions: 0o644])
        }
    }
    let callback = try callbackListener()
    let idp = try TestServer()
    idp.route("/set") { _ in
        var response = TestServer.Response.html(Pages.scripted(
            "Signed in",
            "localStorage.setItem('k', 'v'); setTimeout(() => { location.href = '\(callback.url("/callback"))?code=c&state=xyz' }, 300)"))
        response.headers = [("Set-Cookie", "sso=carol; Max-Age=3600; Path=/; HttpOnly")]
        return response
    }
    let run = SessionRun(
        redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil),
        authorizationURL: idp.url("/set"))
    var facts = try run.facts(await run.outcome(settle: .milliseconds(2000)))
    var entries: [String] = []
    var loose: [String] = []
    // The app's own folder is ours to make private only when we made it.
    let roots = existing ? [dataRoot + "/webview-host", cacheRoot + "/webview-host"] : [dataRoot, cacheRoot]
    for root in roots {
        var paths = [root]
        if let walker = FileManager.default.enumerator(atPath: root) {
            while let relative = walker.nextObject() as? String { paths.append(root + "/" + relative) }
        }
        for path in paths {
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            let mode = Int(status.st_mode) & 0o7777
            let line = "\(String(mode, radix: 8)) \(path)"
            entries.append(line)
            if mode & 0o077 != 0, (Int(status.st_mode) & 0o170000) != 0o120000 { loose.append(line) }  // not a symbolic link
        }
    }
    facts[.entries] = entries
    facts[.looseEntries] = loose
    facts[.cookieFileExists] = FileManager.default.fileExists(atPath: dataRoot + "/webview-host/cookies.sqlite")
    facts[.callbackHits] = callback.requests.count
    return facts
}
