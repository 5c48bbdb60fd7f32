#if WEBKITGTK_6
import CWebKitGTK4
import EmbeddedWebviewProviderGTK4
#else
import CWebKitGTK3
import EmbeddedWebviewProviderGTK3
#endif
import Foundation
import ScenarioSupport
import Synchronization
import WebviewHost

extension EmbeddedScenarios {
    // The app's proxy for the library's window (issue 33): the first session's pages go through
    // the proxy given as the argument (WebviewParameters.networkProxy); the next session, without
    // one, in the same shared web context, goes direct again. arguments: the proxy's URL, then a
    // number of rounds to alternate the two that many times instead, each session right after the
    // last (the route changes each time, and the prewarmed window's page asks at once).
    static let proxy: Scenario = { arguments in
        let callback = try callbackListener()
        let idp = try TestServer()
        if let rounds = arguments.dropFirst().first.flatMap({ Int($0) }) {
            return try await alternatingRoutes(through: arguments[0], rounds: rounds, idp: idp, callback: callback)
        }
        idp.route("/authorize-proxied") { _ in .redirect(callback.url("/callback") + "?code=proxied&state=xyz") }
        idp.route("/authorize-direct") { _ in .redirect(callback.url("/callback") + "?code=direct&state=xyz") }
        var facts = ScenarioReport()
        facts[.idpPort] = idp.port
        var parameters = windowParameters(parent: nil)
        do throws(WebAuthError) {
            parameters.networkProxy = try NetworkProxy(arguments[0])
        } catch {
            facts[.outcome] = "\(error.code): \(error.message)"
            return facts
        }
        let proxied = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize-proxied"))
        facts.merge(proxied.facts(try await proxied.outcome(), prefix: "proxied."))
        let direct = SessionRun(
            redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil), authorizationURL: idp.url("/authorize-direct"))
        facts.merge(direct.facts(try await direct.outcome(), prefix: "direct."))
        return facts
    }
}

extension EmbeddedScenarios {
    /// `proxy <url> <rounds>`: sessions in the library's window, through the proxy and direct in
    /// turn, `rounds` times each; every page is `/authorize-<name>`, whose code is `<name>`.
    @MainActor
    static func alternatingRoutes(through proxyURL: String, rounds: Int, idp: TestServer, callback: TestServer) async throws -> ScenarioReport {
        var facts = ScenarioReport()
        facts[.idpPort] = idp.port
        let proxy = try NetworkProxy(proxyURL)
        var sessions: [String] = []
        for round in 0..<rounds {
            for name in ["proxied-\(round)", "direct-\(round)"] {
                idp.route("/authorize-\(name)") { _ in .redirect(callback.url("/callback") + "?code=\(name)&state=xyz") }
                var parameters = windowParameters(parent: nil)
                if name.hasPrefix("proxied") { parameters.networkProxy = proxy }
                let run = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize-\(name)"))
                let facts = run.facts(try await run.outcome(), prefix: "")
                sessions.append("\(name): \(facts[.outcome] ?? "?") \(facts[.code] ?? "?")")
            }
        }
        facts[.routedSessions] = sessions
        return facts
    }
}

extension EmbeddedScenarios {
    // A proxy that asks for a password (the desktop's proxy: the test sets http_proxy), answered
    // by the app through ProxyAuthentication.ask: a session in the library's window, then one in
    // the app's own view. arguments: the password the app answers with, then `window-only` to leave
    // the app's view out, or `view-desktop-proxy` to give the app's view the desktop's proxy with
    // EmbeddedWebviewProvider.useDesktopProxy(in:) first.
    static let proxyPassword: Scenario = { arguments in
        let callback = try callbackListener()
        let idp = try TestServer()
        idp.route("/authorize-window") { _ in .redirect(callback.url("/callback") + "?code=window&state=xyz") }
        idp.route("/authorize-view") { _ in .redirect(callback.url("/callback") + "?code=view&state=xyz") }
        let asked = Mutex<[String]>([])
        let password = arguments[0]
        ProxyAuthentication.ask = { challenge in
            asked.withLock { $0.append("\(challenge.proxy) \(challenge.attempt)") }
            return ProxyCredential(user: "alice-proxy", password: password)
        }
        var facts = ScenarioReport()
        facts[.idpPort] = idp.port
        let inWindow = SessionRun(
            redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil), authorizationURL: idp.url("/authorize-window"))
        facts.merge(inWindow.facts(try await inWindow.outcome(), prefix: "window."))
        // `window-only`: the app's own view is left out (its web context keeps the desktop's proxy as it is).
        if arguments.dropFirst().first == "window-only" {
            facts[.proxyQuestions] = asked.withLock { $0 }
            return facts
        }
        let (window, view) = Probes.makeAppView(width: 700, height: 560)
        if arguments.dropFirst().first == "view-desktop-proxy" {
            facts[.desktopProxyApplied] = EmbeddedWebviewProvider.useDesktopProxy(in: WebviewHandle(address: view))
        }
        let inView = SessionRun(
            redirectURI: callback.url("/callback"), parameters: WebviewParameters(customWebview: WebviewHandle(address: view)),
            authorizationURL: idp.url("/authorize-view"))
        facts.merge(inView.facts(try await inView.outcome(), prefix: "view."))
        facts[.proxyQuestions] = asked.withLock { $0 }
        return facts
    }
}

extension EmbeddedScenarios {
    // An https sign-in page (as every real provider's is) through the desktop's proxy with its user
    // name and password in its URI (the test sets http_proxy and https_proxy): the page goes
    // through a CONNECT tunnel, which the proxy answers 407 before it opens it. The app's
    // ProxyAuthentication.ask records any question. arguments: `window` (the library's window: an
    // http page first, then, once the window's store trusts the https server's test certificate,
    // the https page, as a provider's link would) or `view` (the app's own view given
    // useDesktopProxy(in:), trusting it first: the https page at once).
    static let proxyTLS: Scenario = { arguments in
        let callback = try callbackListener()
        let certificate = try Probes.selfSignedCertificate()
        let tls = try TestServer(certificate: certificate)
        tls.route("/authorize-tls") { _ in .redirect(callback.url("/callback") + "?code=tls&state=xyz") }
        let idp = try TestServer()
        idp.route("/authorize") { _ in .html(Pages.plain("Sign in", body: "the provider's first page")) }
        let asked = Mutex<[String]>([])
        ProxyAuthentication.ask = { challenge in
            asked.withLock { $0.append("\(challenge.proxy) \(challenge.attempt)") }
            return nil
        }
        var facts = ScenarioReport()
        facts[.idpPort] = tls.port
        if arguments[0] == "view" {
            let (window, view) = Probes.makeAppView(width: 700, height: 560)
            Toolkit.allowCertificate(certificate, host: "127.0.0.1", in: view)
            facts[.desktopProxyApplied] = EmbeddedWebviewProvider.useDesktopProxy(in: WebviewHandle(address: view))
            let run = SessionRun(
                redirectURI: callback.url("/callback"), parameters: WebviewParameters(customWebview: WebviewHandle(address: view)),
                authorizationURL: tls.url("/authorize-tls"))
            facts.merge(run.facts(try await run.outcome(), prefix: ""))
            _ = window
        } else {
            let run = SessionRun(redirectURI: callback.url("/callback"), parameters: windowParameters(parent: nil), authorizationURL: idp.url("/authorize"))
            guard await run.recorder.waitForFinish(path: "/authorize"), let view = run.webview else {
                return run.recorder.pageNeverLoaded()
            }
            Toolkit.allowCertificate(certificate, host: "127.0.0.1", in: view)
            Probes.evaluate("location.href = \"\(tls.url("/authorize-tls"))\"", in: view)
            facts.merge(run.facts(try await run.outcome(), prefix: ""))
        }
        facts[.tlsServerRequests] = tls.requests.count
        facts[.proxyQuestions] = asked.withLock { $0 }
        return facts
    }
}

extension EmbeddedScenarios {
    // The library's own question for a proxy's password (the desktop's proxy: the test sets
    // http_proxy; the app set no ProxyAuthentication.ask): a session in the library's window, the
    // dialog answered with real key events (xdotool). arguments: `right <user> <password>` (then a
    // session in the app's own view, which must not ask again), `cancel`, `wrong-thrice <user>`
    // (a proxy that says 407 to each wrong one), `wrong-once <user>` (tinyproxy, which says 401).
    static let proxyPasswordDialog: Scenario = { arguments in
        let variant = arguments[0]
        let callback = try callbackListener()
        let idp = try TestServer()
        idp.route("/authorize-window") { _ in .redirect(callback.url("/callback") + "?code=window&state=xyz") }
        idp.route("/authorize-view") { _ in .redirect(callback.url("/callback") + "?code=view&state=xyz") }
        var facts = ScenarioReport()
        let shots = ProcessInfo.processInfo.environment["WVH_PROXY_SCREENSHOT"]
        // The README's picture shows the question over an app's window.
        let appWindow = shots == nil ? nil : Probes.makeAppWindow()
        var parameters = windowParameters(parent: appWindow)
        // Not shorter: in a full CI run (every suite at once) each question, typed with real key
        // events, took about 30 s, and three of them ran past 90 s.
        parameters.timeout = Patience.scaled(.seconds(180))
        let inWindow = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize-window"))
        var shown: [String] = []
        var overSignInWindow: [String] = []
        var fieldNames: [String] = []
        /// Waits for the proxy's question, records its texts, then types `user` and `password` with
        /// xdotool (Tab between them) and presses Return, or presses Escape when `user` is `nil`;
        /// `false` when no question came.
        @MainActor func answer(_ user: String?, _ password: String = "") async -> Bool {
            let keys = user.map { ["type \($0)", "key Tab", "type \(password)"] } ?? []
            let title = "Sign in to the proxy"
            guard let dialog = await waitForDialog(titled: title + "$", within: Patience.scaled(.seconds(40)), orUntil: { inWindow.result != nil })
            else {
                return false
            }
            shown.append("window: " + title)
            shown += Probes.labelTexts(in: dialog)
            let parent = gtk_window_get_transient_for(wvh_window(dialog)).map { UnsafeMutableRawPointer($0) }
            overSignInWindow.append(parent != nil && parent == inWindow.webview.flatMap { Toolkit.window(of: $0) } ? "sign-in window" : "other")
            let entries = Probes.descendants(of: dialog).filter {
                g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer($0)), gtk_entry_get_type()) != 0
            }
            if fieldNames.isEmpty { fieldNames = entries.map { Toolkit.accessibleName(of: $0) ?? "(none)" } }
            if let shots {
                // For the README's picture only (never in a test run): what is typed shows, then time to paint.
                for key in keys { _ = xdotool("search --onlyvisible --name '^\(title)$' windowfocus \(key)") }
                await ScenarioHost.idle(.milliseconds(800))
                _ = g_spawn_command_line_sync("import -window root \(shots)", nil, nil, nil, nil)
            }
            let slot = Probes.weakPointer(to: dialog)
            let answered = { slot.pointee.map { gtk_widget_get_visible(wvh_widget($0)) == 0 } ?? true }
            // On a loaded machine a dialog just mapped may not have the keyboard yet: keys it did
            // not take are sent again, from empty fields with the first one focused, and Return only
            // once the fields hold what was typed (a lost key would send a wrong password).
            let typed = { entries.map { Toolkit.entryText($0) } == (user.map { [$0, password] } ?? entries.map { Toolkit.entryText($0) }) }
            for attempt in 1...5 {
                guard !answered() else { break }
                for entry in entries { Toolkit.setEntryText(entry, "") }
                if let first = entries.first { gtk_widget_grab_focus(wvh_widget(first)) }
                for key in keys { _ = xdotool("search --onlyvisible --name '^\(title)$' windowfocus \(key)") }
                guard await ScenarioHost.wait(upTo: Patience.scaled(.seconds(3)), until: typed) else { continue }
                _ = xdotool("search --onlyvisible --name '^\(title)$' windowfocus key \(user == nil ? "Escape" : "Return")")
                if await ScenarioHost.wait(upTo: attempt < 5 ? Patience.scaled(.seconds(6)) : Patience.event, until: answered) { break }
            }
            // Five tries and the dialog still up: the keys never reached it (the test's failure
            // says so, instead of the session's time limit alone).
            if !answered() { shown.append("still open after typing: " + title) }
            return true
        }
        switch variant {
        case "right":
            _ = await answer(arguments[1], arguments[2])
        case "cancel":
            _ = await answer(nil)
        case "wrong-once":
            _ = await answer(arguments[1], "wrong-secret")
        default:  // wrong-thrice
            for attempt in 1...3 {
                _ = await answer(arguments[1], "wrong-secret-\(attempt)")
            }
        }
        facts.merge(inWindow.facts(try await inWindow.outcome(within: Patience.scaled(.seconds(220))), prefix: "window."))
        if variant == "right" {
            // The app's own view through the same proxy: the credential is held, nobody is asked.
            let (window, view) = Probes.makeAppView(width: 700, height: 560)
            let inView = SessionRun(
                redirectURI: callback.url("/callback"), parameters: WebviewParameters(customWebview: WebviewHandle(address: view)),
                authorizationURL: idp.url("/authorize-view"))
            facts.merge(inView.facts(try await inView.outcome(), prefix: "view."))
        }
        facts[.idpPort] = idp.port
        facts[.authorizeRequests] = idp.requests(to: "/authorize-window").count
        facts[.proxyDialogs] = shown + Probes.visibleDialogTitles()
        facts[.proxyDialogOverSignInWindow] = overSignInWindow
        facts[.proxyFieldNames] = fieldNames
        _ = appWindow
        return facts
    }
}

extension EmbeddedScenarios {
    // A load cancelled before anything was shown, with no load to replace it: the app changes its
    // view's proxy settings while the sign-in page loads (WebKit then aborts the store's requests;
    // the library's window met the same when its own settings reached the network process after
    // the page's request). arguments: `once` (the page's second load answers: the session goes on
    // to success) or `twice` (both loads are aborted: the session ends with network).
    static let loadCancelledUnreplaced: Scenario = { arguments in
        let callback = try callbackListener()
        let idp = try TestServer()
        let twice = arguments.first == "twice"
        idp.route("/authorize") { request in
            let count = idp.requests(to: "/authorize").count
            if count == 1 || (twice && count == 2) { return .html("<p>slow</p>", delay: Patience.scaled(.seconds(30))) }
            return .redirect(callback.url("/callback") + "?code=again&state=xyz")
        }
        let (_, view) = Probes.makeAppView(width: 700, height: 560)
        let run = SessionRun(
            redirectURI: callback.url("/callback"), parameters: WebviewParameters(customWebview: WebviewHandle(address: view)),
            authorizationURL: idp.url("/authorize"))
        var facts = ScenarioReport()
        let changes: [Bool] = twice ? [true, false] : [true]
        for (index, noProxy) in changes.enumerated() {
            // The request is at the server (its answer delayed): the app changes the proxy settings.
            guard await ScenarioHost.wait(upTo: Patience.event, until: { idp.requests(to: "/authorize").count == index + 1 || run.result != nil })
            else { throw ToolFailed(description: "the sign-in page's request \(index + 1) did not reach the server") }
            Toolkit.setNoProxy(noProxy, in: view)
        }
        facts.merge(run.facts(try await run.outcome(), prefix: ""))
        facts[.authorizeRequests] = idp.requests(to: "/authorize").count
        return facts
    }
}

extension EmbeddedScenarios {
    // The sign-in page's connection dropped under its request before anything was shown (the
    // server, as a proxy closing a kept-alive connection does, closes it without an answer).
    // arguments: `window` or `view`; then `once` (the second request is answered: success) or
    // `always` (every request dropped: network, after one more try only).
    static let connectionDropped: Scenario = { arguments in
        let callback = try callbackListener()
        let idp = try TestServer()
        let always = arguments.dropFirst().first == "always"
        idp.route("/authorize") { _ in
            if always || idp.requests(to: "/authorize").count == 1 { return .dropped }
            return .redirect(callback.url("/callback") + "?code=again&state=xyz")
        }
        var parameters = windowParameters(parent: nil)
        if arguments.first == "view" {
            let (_, view) = Probes.makeAppView(width: 700, height: 560)
            parameters = WebviewParameters(customWebview: WebviewHandle(address: view))
        }
        let run = SessionRun(redirectURI: callback.url("/callback"), parameters: parameters, authorizationURL: idp.url("/authorize"))
        var facts = ScenarioReport()
        facts.merge(run.facts(try await run.outcome(), prefix: ""))
        facts[.authorizeRequests] = idp.requests(to: "/authorize").count
        return facts
    }
}
