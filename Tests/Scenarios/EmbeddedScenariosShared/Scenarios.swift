// GTK scenarios for the embedded provider: real WebAuthSessions in a real GLib main loop, against
// real libsoup servers on 127.0.0.1. Each reports what it observed; the tests assert. The same
// sources run against both providers: EmbeddedScenariosGTK3 (GTK 3, WebKitGTK 4.1) and
// EmbeddedScenariosGTK4 (GTK 4, WebKitGTK 6.0, compiled with WEBKITGTK_6); each target adds only
// its Toolkit.swift.
import CGLib
#if WEBKITGTK_6
import CWebKitGTK4
import EmbeddedWebviewProviderGTK4
#else
import CWebKitGTK3
import EmbeddedWebviewProviderGTK3
#endif
import Foundation
import GLibSupport
import ScenarioSupport
import WebviewHost
import WebviewHostTestKit

/// A callback listener: the redirect URI's port, counting every request that reaches it.
@MainActor
func callbackListener() throws -> TestServer {
    let server = try TestServer()
    server.route("/callback") { _ in .html(Pages.plain("The callback reached the network")) }
    return server
}

@MainActor
func encoded(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
}

@MainActor
func windowParameters(parent: UnsafeMutableRawPointer?, ephemeral: Bool = false) -> WebviewParameters {
    WebviewParameters(
        webviewType: .embedded, parentWindow: parent.map { WindowHandle(address: $0) },
        prefersEphemeralWebBrowserSession: ephemeral, windowTitle: "Sign in to Test IdP",
        windowSize: .init(width: 480, height: 560))
}

/// Facts about the library-owned window around the view.
@MainActor
func windowFacts(_ view: UnsafeMutableRawPointer, parent: UnsafeMutableRawPointer?) -> ScenarioReport {
    // Gone already when the page ended the session before the test looked (a loaded machine).
    var facts = ScenarioReport()
    guard let window = Toolkit.window(of: view) else {
        facts[.windowMissing] = true
        return facts
    }
    var width: gint = 0
    var height: gint = 0
    gtk_window_get_default_size(wvh_window(window), &width, &height)
    let transient = gtk_window_get_transient_for(wvh_window(window)).map { UnsafeMutableRawPointer($0) }
    if let parent, let distance = Toolkit.distanceFromCentre(of: window, on: parent) {
        facts[.windowCentreOffset] = distance
    }
    facts[.windowTitle] = gtk_window_get_title(wvh_window(window)).map { String(cString: $0) } ?? ""
    facts[.windowModal] = gtk_window_get_modal(wvh_window(window)) != 0
    facts[.windowTransientForParent] = parent != nil && transient == parent
    facts[.windowDefaultWidth] = Int(width)
    facts[.windowDefaultHeight] = Int(height)
    facts[.windowVisible] = gtk_widget_get_visible(wvh_widget(window)) != 0
    facts[.windowSubtitle] = Toolkit.subtitle(of: window)
    facts[.visibleToplevelsDuring] = Probes.visibleToplevels()
    return facts
}

@MainActor
extension EmbeddedScenarios {
    // A login form posted by script, then a 302 to the redirect URI, in the library-owned window
    // over a parent window.
    static let login: Scenario = { _ in
        let app = Probes.makeAppWindow()
        let callback = try callbackListener()
        let idp = try TestServer()
        // The form is filled and posted by script once the test has looked at the window (a page
        // posting on its own timer could end the session before a loaded machine lets it look).
        idp.route("/authorize") { _ in .html(Pages.login(action: "/login", submitAfterMilliseconds: nil)) }
        idp.route("/login") { _ in .redirect(callback.url("/callback") + "?code=abc123&state=xyz") }
        let run = SessionRun(
            redirectURI: callback.url("/callback"), parameters: windowParameters(parent: app),
            authorizationURL: idp.url("/authorize?client_id=c&redirect_uri=\(encoded(callback.url("/callback")))&state=xyz"))
        var facts = ScenarioReport()
        var windowRef: UnsafeMutablePointer<gpointer?>?
        if await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview {
            facts.merge(windowFacts(view, parent: app))
            windowRef = Toolkit.window(of: view).map(Probes.weakPointer(to:))
            Probes.evaluate(
                "document.getElementById('user').value = 'alice'; document.getElementById('password').value = 'secret';"
                    + " document.forms[0].submit()", in: view)
        }
        let result = try await run.outcome()
        facts.merge(run.facts(result))
        facts[.callbackRequests] = callback.requests.count
        facts[.idpPort] = idp.port
        facts[.loginPosts] = idp.requests(to: "/login").filter { $0.method == "POST" }.count
        facts[.loginBody] = idp.requests(to: "/login").first?.body ?? ""
        facts[.windowFinalized] = windowRef?.pointee == nil
        facts[.visibleToplevelsAfter] = Probes.visibleToplevels()
        return facts
    }

    // Client-side redirects to the redirect URI: meta refresh, location.replace, and a page whose
    // own URL (same host and path, other port) carries redirect_uri= in its query.
    static let redirect: Scenario = { arguments in
        let kind = arguments.first ?? "meta"
        let callback = try callbackListener()
        let idp = try TestServer()
        let target = callback.url("/callback") + "?code=\(kind)-code&state=xyz"
        switch kind {
        case "meta":
            idp.route("/authorize") { _ in
                .html("<html><head><meta http-equiv=\"refresh\" content=\"0;url=\(target)\"></head><body>Redirecting</body></html>")
            }
        case "replace":
            idp.route("/authorize") { _ in .html(Pages.scripted("Replacing", "setTimeout(() => location.replace('\(target)'), 100)")) }
        case "direct":  // the server answers at once with a 302 to the redirect URI (a signed-in person)
            idp.route("/authorize") { _ in .redirect(target) }
        case "malformed":  // a 302 to the redirect URI whose code has a broken percent-escape
            idp.route("/authorize") { _ in .redirect(callback.url("/callback") + "?code=ab%zz&state=xyz") }
        default:  // "query"
            idp.route("/authorize") { _ in .redirect(idp.url("/callback") + "?redirect_uri=\(callback.url("/callback"))&state=xyz") }
            idp.route("/callback") { _ in .html(Pages.scripted("Lookalike", "setTimeout(() => { location.href = '\(target)' }, 200)")) }
        }
        let run = SessionRun(
            redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil),
            authorizationURL: idp.url("/authorize"))
        let result = try await run.outcome()
        var facts = run.facts(result)
        facts[.callbackRequests] = callback.requests.count
        facts[.lookalikeRequests] = idp.requests(to: "/callback").count
        facts[.lookalikeQuery] = idp.requests(to: "/callback").first?.query ?? ""
        return facts
    }

    // target=_blank and window.open stay in the view; a custom-scheme link and a broker URI are
    // not loaded in it.
    static let newWindows: Scenario = { _ in
        let callback = try callbackListener()
        let idp = try TestServer()
        idp.route("/authorize") { _ in .html(Pages.plain("Start", body: "<a id='blank' target='_blank' href='/page2'>new tab</a>")) }
        idp.route("/page2") { _ in .html(Pages.plain("Page two")) }
        idp.route("/page3") { _ in
            .html(Pages.plain("Page three", body: "<a id='custom' href='wvh-test-scheme://open?x=1'>open app</a>"))
        }
        // The custom scheme and the broker's (no broker is registered here) are allow-listed, so
        // the link and the window (both with a gesture) are handed on.
        var parameters = windowParameters(parent: nil)
        parameters.externalSchemes = .allow(["wvh-test-scheme", "msauth"])
        let run = SessionRun(
            redirectURI: callback.url("/callback"), parameters: parameters,
            authorizationURL: idp.url("/authorize"))
        var facts = ScenarioReport()
        var maxToplevels = 0
        guard await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview else {
            return run.recorder.pageNeverLoaded()
        }
        maxToplevels = max(maxToplevels, Probes.visibleToplevels())
        Probes.evaluate("document.getElementById('blank').click()", in: view)
        facts[.blankFinished] = await run.recorder.waitForFinish(path: "/page2")
        facts[.uriAfterBlank] = Probes.uri(of: view)
        maxToplevels = max(maxToplevels, Probes.visibleToplevels())
        Probes.evaluate("window.open('/page3')", in: view)
        facts[.openFinished] = await run.recorder.waitForFinish(path: "/page3")
        facts[.uriAfterOpen] = Probes.uri(of: view)
        maxToplevels = max(maxToplevels, Probes.visibleToplevels())
        Probes.evaluate("document.getElementById('custom').click()", in: view)
        facts[.customReported] = await run.recorder.wait() {
            $0.name == "didFinishLoad" && $0.url?.scheme == "wvh-test-scheme"
        }
        await ScenarioHost.idle(.milliseconds(300))
        facts[.uriAfterCustom] = Probes.uri(of: view)
        Probes.evaluate("window.open('msauth://broker/request?x=1')", in: view)
        facts[.brokerReported] = await run.recorder.wait() { $0.name == "willSwitchToBrokerApp" }
        await ScenarioHost.idle(.milliseconds(300))
        facts[.uriAfterBroker] = Probes.uri(of: view)
        maxToplevels = max(maxToplevels, Probes.visibleToplevels())
        Probes.evaluate("location.href = '\(callback.url("/callback"))?code=nw&state=xyz'", in: view)
        let result = try await run.outcome()
        facts.merge(run.facts(result))
        facts[.page2Requests] = idp.requests(to: "/page2").count
        facts[.page3Requests] = idp.requests(to: "/page3").count
        facts[.maxVisibleToplevels] = maxToplevels
        facts[.callbackRequests] = callback.requests.count
        return facts
    }

    // Each way a session fails, in the library-owned window over a parent window.
    static let failure: Scenario = { arguments in
        let kind = arguments.first ?? "close"
        let app = Probes.makeAppWindow()
        let callback = try callbackListener()
        let idp = try TestServer()
        idp.route("/authorize") { _ in .html(Pages.login(action: "/login", submitAfterMilliseconds: nil)) }
        var authorizationURL = idp.url("/authorize")
        var tlsServer: TestServer?
        switch kind {
        case "unreachable":
            let dead = try TestServer()
            authorizationURL = dead.url("/authorize")
            dead.close()
        case "tls":
            let server = try TestServer(certificate: try Probes.selfSignedCertificate())
            server.route("/authorize") { _ in .html(Pages.plain("Must never show")) }
            authorizationURL = server.url("/authorize")
            tlsServer = server
        default:
            break
        }
        let run = SessionRun(
            redirectURI: callback.url("/callback"), parameters: windowParameters(parent: app),
            authorizationURL: authorizationURL)
        var facts = ScenarioReport()
        facts[.kind] = kind
        var windowRef: UnsafeMutablePointer<gpointer?>?
        if ["close", "cancel-button", "cancel-click", "escape", "cancel", "web-process", "parent-destroyed"].contains(kind) {
            guard await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview else {
                return run.recorder.pageNeverLoaded()
            }
            guard let window = Toolkit.window(of: view) else {
                return ScenarioReport(error: "the sign-in view is in no window")
            }
            windowRef = Probes.weakPointer(to: window)
            facts[.windowButtons] = Probes.shownButtons(in: window)
            switch kind {
            case "close": gtk_window_close(wvh_window(window))  // what the window manager's close does
            case "cancel-button": Probes.clickButton(labelled: "_Cancel", in: window)
            case "cancel-click": facts[.clickAttempts] = await realClickOnCancel(in: window, run: run)
            case "escape": Toolkit.pressKey(UInt32(GDK_KEY_Escape), on: window)
            case "cancel": run.session.cancel()
            case "parent-destroyed": Toolkit.destroyWindow(app)  // the app quits its main window
            default: webkit_web_view_terminate_web_process(wvh_web_view(view))
            }
        }
        let result = try await run.outcome()
        facts.merge(run.facts(result))
        if let windowRef { facts[.windowFinalized] = windowRef.pointee == nil }
        facts[.visibleToplevelsAfter] = Probes.visibleToplevels()
        facts[.callbackRequests] = callback.requests.count
        if let tlsServer { facts[.tlsServerRequests] = tlsServer.requests.count }
        return facts
    }

    // A second session while one runs fails at once; the first still ends with its own outcome.
    static let secondSession: Scenario = { _ in
        let callback = try callbackListener()
        let idp = try TestServer()
        idp.route("/authorize") { _ in .html(Pages.login(action: "/login", submitAfterMilliseconds: nil)) }
        let first = SessionRun(
            redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil),
            authorizationURL: idp.url("/authorize"))
        guard await first.recorder.waitForFinish(path: "/authorize"), let view = first.webview else {
            return ScenarioReport(error: "the first session's page never finished loading")
        }
        let toplevelsBefore = Probes.visibleToplevels()
        let second = SessionRun(
            redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil),
            authorizationURL: idp.url("/authorize"))
        let secondResult = try await second.outcome()
        let toplevelsDuringSecond = Probes.visibleToplevels()
        Probes.evaluate("location.href = '\(callback.url("/callback"))?code=first&state=xyz'", in: view)
        let firstResult = try await first.outcome()
        var facts = first.facts(firstResult, prefix: "first.")
        facts.merge(second.facts(secondResult, prefix: "second."))
        facts[.toplevelsBeforeSecond] = toplevelsBefore
        facts[.toplevelsAfterSecond] = toplevelsDuringSecond
        facts[.authorizeRequests] = idp.requests(to: "/authorize").count
        facts[.callbackRequests] = callback.requests.count
        return facts
    }

    // The caller's own view in the caller's own window: success, failure or cancel. A second
    // argument `html`: the view first shows the app's own HTML (`load_html`, no base URI, as an
    // app shows its own content) instead of a page loaded from a URI; `html-at-once`: the same,
    // and the session starts at once, while that HTML may still be loading (an app that signs
    // in as it starts).
    static let customView: Scenario = { arguments in
        let kind = arguments.first ?? "success"
        let ownHTML = arguments.dropFirst().first?.hasPrefix("html") == true
        let atOnce = arguments.dropFirst().first == "html-at-once"
        let callback = try callbackListener()
        let idp = try TestServer()
        idp.route("/app") { _ in .html(Pages.plain("App home")) }
        idp.route("/authorize") { _ in .html(Pages.login(action: "/login", submitAfterMilliseconds: nil)) }

        let window = Toolkit.makeWindow(width: 700, height: 560)
        let box = Toolkit.makeVerticalBox()
        Toolkit.append(UnsafeMutableRawPointer(gtk_label_new("The app's own header")!), to: box)
        let view = UnsafeMutableRawPointer(webkit_web_view_new()!)
        g_object_ref_sink(view)  // the test keeps it, to see whether it is destroyed
        gtk_widget_set_size_request(wvh_widget(view), 640, 420)
        Toolkit.append(view, to: box, expand: true)
        Toolkit.setChild(box, of: window)
        Toolkit.show(window)
        if ownHTML {
            webkit_web_view_load_html(wvh_web_view(view), Pages.plain("App home"), nil)
        } else {
            webkit_web_view_load_uri(wvh_web_view(view), idp.url("/app"))
        }
        @MainActor func appPageShown() -> Bool {
            if ownHTML { return webkit_web_view_get_title(wvh_web_view(view)).map { String(cString: $0) } == "App home" }
            return Probes.uri(of: view).hasSuffix("/app")
        }
        if !atOnce { _ = await ScenarioHost.wait { webkit_web_view_is_loading(wvh_web_view(view)) == 0 && appPageShown() } }
        if !atOnce { await ScenarioHost.idle(.milliseconds(200)) }

        @MainActor func viewFacts(_ moment: String) -> ScenarioReport {
            var facts = ScenarioReport()
            facts[.handlers.suffixed(by: moment)] = SignalInspection.handlerCount(on: view)
            facts[.parentIsBox.suffixed(by: moment)] =
                gtk_widget_get_parent(wvh_widget(view)).map { UnsafeMutableRawPointer($0) } == UnsafeMutableRawPointer(box)
            facts[.width.suffixed(by: moment)] = Toolkit.size(of: view).width
            facts[.height.suffixed(by: moment)] = Toolkit.size(of: view).height
            facts[.visible.suffixed(by: moment)] = gtk_widget_get_visible(wvh_widget(view)) != 0
            facts[.mapped.suffixed(by: moment)] = gtk_widget_get_mapped(wvh_widget(view)) != 0
            facts[.inDestruction.suffixed(by: moment)] = gtk_widget_in_destruction(wvh_widget(view)) != 0
            facts[.uri.suffixed(by: moment)] = Probes.uri(of: view)
            facts[.title.suffixed(by: moment)] = webkit_web_view_get_title(wvh_web_view(view)).map { String(cString: $0) } ?? ""
            return facts
        }
        var facts = viewFacts("Before")
        let handlersBefore = SignalInspection.handlerCount(on: view)
        facts[.kind] = kind
        let run = SessionRun(
            redirectURI: callback.url("/callback"),
            parameters: WebviewParameters(webviewType: .default, customWebview: WebviewHandle(address: view)),
            authorizationURL: idp.url("/authorize"))
        guard await run.recorder.waitForFinish(path: "/authorize") else {
            return run.recorder.pageNeverLoaded("the authorization page in the custom view")
        }
        // The title reaches the UI process a moment after the load finished; wait for it.
        _ = await ScenarioHost.wait { !(webkit_web_view_get_title(wvh_web_view(view)).map({ String(cString: $0) })?.isEmpty ?? true) }
        facts.merge(viewFacts("During"))
        let dead = try TestServer()
        let deadURL = dead.url("/unreachable")
        dead.close()
        switch kind {
        case "success": Probes.evaluate("location.href = '\(callback.url("/callback"))?code=custom&state=xyz'", in: view)
        case "failure": Probes.evaluate("location.href = '\(deadURL)'", in: view)
        default: run.session.cancel()
        }
        let result = try await run.outcome()
        facts.merge(run.facts(result))
        // The provider ends the page and lets go of the view before the caller resumes: the view
        // is as the app will find it (the report says so), and nothing may change it later.
        facts[.uriAtResume] = Probes.uri(of: view)
        facts[.handlersAtResume] = SignalInspection.handlerCount(on: view) - handlersBefore
        await ScenarioHost.idle(.milliseconds(500))
        facts.merge(viewFacts("After"))
        facts[.isLoadingAfter] = webkit_web_view_is_loading(wvh_web_view(view)) != 0
        facts[.notificationsCarryView] = run.recorder.all.allSatisfy { $0.webview?.address == view }
        facts[.provider] = run.session.provider?.id.rawValue ?? ""
        facts[.callbackRequests] = callback.requests.count
        facts[.visibleToplevelsAfter] = Probes.visibleToplevels()
        return facts
    }

    // A customWebview with .authenticationSession is refused, not ignored.
    static let customViewAuthenticationSession: Scenario = { _ in
        let view = UnsafeMutableRawPointer(webkit_web_view_new()!)
        g_object_ref_sink(view)
        let session = WebAuthSession(
            redirectURI: URL(string: "http://127.0.0.1:45678/callback")!,
            parameters: WebviewParameters(webviewType: .authenticationSession, customWebview: WebviewHandle(address: view)))
        var facts = ScenarioReport()
        facts[.handlersBefore] = SignalInspection.handlerCount(on: view)
        do throws(WebAuthError) {
            _ = try await session.prepare()
            facts[.outcome] = "prepared"
        } catch {
            facts[.outcome] = error.code.name
            facts[.errorMessage] = error.message
        }
        facts[.handlersAfter] = SignalInspection.handlerCount(on: view)
        facts[.visibleToplevels] = Probes.visibleToplevels()
        return facts
    }

    // A cookie set in session one, and whether session two sends it; persistent mode then signs out.
    static let cookies: Scenario = { arguments in
        let ephemeral = arguments.first == "ephemeral"
        let callback = try callbackListener()
        let idp = try TestServer()
        let finish = "setTimeout(() => { location.href = '\(callback.url("/callback"))?code=c&state=xyz' }, 100)"
        idp.route("/set") { _ in
            var response = TestServer.Response.html(Pages.scripted("Signed in", finish))
            response.headers = [("Set-Cookie", "sso=alice; Max-Age=3600; Path=/; HttpOnly")]
            return response
        }
        idp.route("/check") { _ in .html(Pages.scripted("Checked", finish)) }
        var facts = ScenarioReport()
        facts[.mode] = ephemeral ? "ephemeral" : "persistent"
        for (index, path) in ["/set", "/check"].enumerated() {
            let run = SessionRun(
                redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil, ephemeral: ephemeral),
                authorizationURL: idp.url(path))
            try facts.merge(run.facts(await run.outcome(), prefix: "session\(index + 1)."))
        }
        facts[.cookieInSecond] = idp.requests(to: "/check").last?.cookie ?? ""
        let dataHome = String(cString: g_get_user_data_dir())
        // The app's folder: no GApplication here, so the program name (GTK 4 sets no prgname).
        let folder = "\(dataHome)/\(ProcessInfo.processInfo.processName)/webview-host"
        facts[.dataFolder] = folder
        facts[.cookieFileExists] = FileManager.default.fileExists(atPath: folder + "/cookies.sqlite")
        facts[.dataFolderExists] = FileManager.default.fileExists(atPath: folder)
        if !ephemeral {
            try await EmbeddedWebviewProvider.clearPersistentData()
            let run = SessionRun(
                redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil),
                authorizationURL: idp.url("/check"))
            try facts.merge(run.facts(await run.outcome(), prefix: "session3."))
            facts[.cookieAfterSignOut] = idp.requests(to: "/check").last?.cookie ?? ""
        }
        facts[.checkRequests] = idp.requests(to: "/check").count
        facts[.callbackRequests] = callback.requests.count
        return facts
    }

    // One persistent-mode session in this process: "set" sets a cookie, "check" reports the cookie
    // it sent. Run twice with the same XDG_DATA_HOME, it shows sign-in state surviving the process.
    static let cookieStep: Scenario = { arguments in
        let step = arguments.first ?? "check"
        let callback = try callbackListener()
        let idp = try TestServer()
        let finish = "setTimeout(() => { location.href = '\(callback.url("/callback"))?code=c&state=xyz' }, 100)"
        idp.route("/step") { _ in
            var response = TestServer.Response.html(Pages.scripted("Step", finish))
            if step == "set" { response.headers = [("Set-Cookie", "sso=bob; Max-Age=3600; Path=/; HttpOnly")] }
            return response
        }
        let run = SessionRun(
            redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil),
            authorizationURL: idp.url("/step"))
        var facts = try run.facts(await run.outcome())
        facts[.cookieSent] = idp.requests(to: "/step").last?.cookie ?? ""
        return facts
    }

    // A slow page: the load indicator shows while it loads and hides once it finished.
    static let slowPage: Scenario = { _ in
        let callback = try callbackListener()
        let idp = try TestServer()
        // Slow enough that the check 1.2 s after the load started still finds it loading on a busy machine.
        idp.route("/authorize") { _ in .html(Pages.plain("Finally"), delay: Patience.scaled(.seconds(5))) }
        let run = SessionRun(
            redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil),
            authorizationURL: idp.url("/authorize"))
        var facts = ScenarioReport()
        guard await run.recorder.wait(until: { $0.name == "didStartLoad" }), let view = run.webview else {
            return ScenarioReport(error: "no load started")
        }
        guard let window = Toolkit.window(of: view), let spinner = Probes.descendant(of: window, named: "GtkSpinner") else {
            return ScenarioReport(error: "no GtkSpinner in the sign-in window")
        }
        await ScenarioHost.idle(.milliseconds(1200))
        facts[.indicatorVisibleWhileSlow] = gtk_widget_is_visible(wvh_widget(spinner)) != 0
        facts[.loadingWhileSlow] = webkit_web_view_is_loading(wvh_web_view(view)) != 0
        facts[.finished] = await run.recorder.waitForFinish(path: "/authorize")
        await ScenarioHost.idle(.milliseconds(100))
        facts[.indicatorVisibleAfterLoad] = gtk_widget_is_visible(wvh_widget(spinner)) != 0
        run.session.cancel()
        try facts.merge(run.facts(await run.outcome()))
        return facts
    }

    // A sign-in page that navigates to a broker app's URI (msauth://) while a broker provider is
    // registered: the broker takes the session over and completes it; the window goes away.
    static let broker: Scenario = { _ in
        let brokerLog = FakeWebviewProvider(id: "test-broker", brokerSchemes: ["msauth"], behavior: { presentation in
            let callback = FakeWebviewProvider.callback(for: presentation, query: "code=from-broker&state=xyz")
            DispatchQueue.main.async { presentation.reporter.handleRedirect(callback) }
        })
        WebviewProviderRegistry.register(brokerLog)
        let app = Probes.makeAppWindow()
        let callback = try callbackListener()
        let idp = try TestServer()
        idp.route("/authorize") { _ in .html(Pages.plain("Use the broker app")) }
        let run = SessionRun(
            redirectURI: callback.url("/callback"), parameters: windowParameters(parent: app),
            authorizationURL: idp.url("/authorize"))
        var facts = ScenarioReport()
        if await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview {
            Probes.evaluate("location.href = 'msauth://broker/authorize?request=abc'", in: view)
        }
        let result = try await run.outcome()
        facts.merge(run.facts(result))
        facts[.brokerCalls] = brokerLog.log.all.map { "\($0)" }
        facts[.callbackRequests] = callback.requests.count
        facts[.visibleToplevelsAfter] = Probes.visibleToplevels()
        return facts
    }

    // The provider contract suite (WebviewHostTestKit), in a library-owned window ("window") or
    // in a caller-supplied view ("custom-view").
    static let conformance: Scenario = { arguments in
        let callback = try callbackListener()
        let idp = try TestServer()
        idp.route("/authorize") { request in
            let state = URLComponents(string: "http://x/?" + (request.query ?? ""))?.queryItems?.first { $0.name == "state" }?.value ?? ""
            return .redirect(callback.url("/callback") + "?code=conformance&state=" + encoded(state))
        }
        idp.route("/pending") { _ in .html(Pages.plain("Waiting")) }
        // The hand-over checks: a page that feature-detects WebAuthn and asks for a passkey
        // (or, finding none, goes on waiting, which fails the checks).
        idp.route("/report") { _ in .html("ok") }
        idp.route("/passkey") { _ in .html(passkeyPage(operation: "get", always: false, fallback: idp.url("/pending"))) }
        var parameters = WebviewParameters(webviewType: .embedded)
        if arguments.first == "custom-view" {
            let (window, view) = Probes.makeAppView()
            parameters.customWebview = WebviewHandle(address: view)
        }
        let authorize = idp.url("/authorize")
        let pending = idp.url("/pending")
        let passkey = idp.url("/passkey")
        let fixture = WebviewProviderConformance.Fixture(
            redirectURI: URL(string: callback.url("/callback"))!, parameters: parameters,
            succeedingAuthorizationURL: { _, state in URL(string: authorize + "?state=" + state)! },
            pendingAuthorizationURL: { _ in URL(string: pending)! },
            handOverAuthorizationURL: { _ in URL(string: passkey)! },
            // The library's window must be out of sight when the caller resumes (in the
            // caller's-view mode, the app's own window stays: nothing of the library's shows).
            visibleUI: arguments.first == "custom-view" ? nil : { @MainActor @Sendable in visibleWindows() })
        let failures = await WebviewProviderConformance.run(provider: EmbeddedWebviewProvider(), fixture: fixture)
        var facts = ScenarioReport()
        facts[.failures] = failures.map(\.description)
        facts[.callbackRequests] = callback.requests(to: "/callback").count
        return facts
    }

    /// The toplevel windows the person can see, by title (the conformance suite's `visibleUI`).
    @MainActor
    static func visibleWindows() -> [String] {
        Toolkit.toplevels().filter { gtk_widget_get_visible(wvh_widget($0)) != 0 }.map { window -> String in
            let title = gtk_window_get_title(wvh_window(window)).map { String(cString: $0) } ?? ""
            return "a window titled \"\(title)\""
        }
    }

    // For screenshots: the sign-in window over an app window ("window"), or on a slow page
    // ("loading"), kept open for the given seconds.
    static let show: Scenario = { arguments in
        let kind = arguments.first ?? "window"
        let seconds = arguments.dropFirst().first.flatMap(Int.init) ?? 8
        let app = Probes.makeAppWindow()
        let callback = try callbackListener()
        let idp = try TestServer()
        idp.route("/authorize") { _ in
            .html(Pages.login(action: "/login", submitAfterMilliseconds: nil),
                  delay: kind == "loading" ? .seconds(seconds + 5) : nil)
        }
        let run = SessionRun(
            redirectURI: callback.url("/callback"), parameters: windowParameters(parent: app),
            authorizationURL: idp.url("/authorize"))
        await ScenarioHost.idle(.seconds(seconds))
        run.session.cancel()
        return try run.facts(await run.outcome())
    }
}

/// A person's click on the window's "Cancel": real X pointer clicks (``realClicks(button:windowTitle:at:until:)``,
/// on a display of the scenario's own) in the middle of the button, until the session ends.
/// The clicks made (0: no "Cancel" in the window).
@MainActor
func realClickOnCancel(in window: UnsafeMutableRawPointer, run: SessionRun) async -> Int {
    guard let button = Probes.findButton(labelled: "_Cancel", in: window) else { return 0 }
    let title = String(cString: gtk_window_get_title(wvh_window(window)))
    return await realClicks(button: 1, windowTitle: title, at: { Toolkit.centreInWindow(of: button) }) {
        run.result != nil
    }.attempts
}
