import Foundation
import ScenarioSupport
import Testing

/// Issue 41: the GObject layer as Python and GJS apps use it in their first week, under
/// `G_DEBUG=fatal-criticals` (where a wrong annotation shows: in the bindings only): the accounts
/// a listing returns, kept across garbage collection and a restart, read again and passed back
/// into silent calls and a sign-out; each application's signals its own calls' only; the lower
/// level returning the URL reached at the redirect URI, an OAuth error in it included.
extension GlewlwydSignInTests {
    /// A file token cache of its own, which a second process reads as "after a restart", in a
    /// folder the library makes (0700: the store refuses a folder others can write, such as /tmp).
    func freshCacheFile() -> (file: String, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webviewhost-accounts-\(UUID().uuidString)")
        return (folder.appendingPathComponent("cache.json").path, folder)
    }

    /// The checks of a listing: the account read, read again after garbage collection, and
    /// still readable once the array is gone.
    func expectReadableAccount(_ report: [String: Any], listing index: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let listings = report["listings"] as? [[String: Any]] ?? []
        guard index < listings.count else {
            Issue.record("no listing \(index): \(report)", sourceLocation: sourceLocation)
            return
        }
        let listing = listings[index]
        let first = listing["first"] as? [[String: Any]] ?? []
        #expect(first.count == 1, "one account: \(listing)", sourceLocation: sourceLocation)
        #expect(first.first?["username"] as? String == server.userEmail, "\(listing)", sourceLocation: sourceLocation)
        #expect((first.first?["subject"] as? String)?.isEmpty == false, "\(listing)", sourceLocation: sourceLocation)
        #expect((listing["again"] as? [[String: Any]])?.first?["username"] as? String == server.userEmail,
                "read again after the collector ran: \(listing)", sourceLocation: sourceLocation)
        let kept = listing["keptAfterGC"] as? [String: Any]
        #expect(kept?["username"] as? String == server.userEmail, "kept past its array: \(listing)", sourceLocation: sourceLocation)
        #expect((kept?["getters"] as? [String])?.contains(server.userEmail) == true, "\(listing)", sourceLocation: sourceLocation)
    }

    @Test("Python, fatal criticals: the accounts listed after a sign-in and after a restart read across gc.collect() and renew silently; sign-out leaves none")
    func pythonAccountsSurviveCollectionAndRestart() async throws {
        let (cache, folder) = freshCacheFile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try await gobjectApp(["/usr/bin/python3", fixture("accounts.py"), "first", cache] + credentials)
        #expect(first["outcome"] as? String == "success", "\(first)")
        #expect(first["signedInAs"] as? String == server.userEmail)
        expectReadableAccount(first, listing: 0)
        #expect((first["silent"] as? [String: Any])?["username"] as? String == server.userEmail, "the listed account renews silently: \(first)")

        let restarted = try await gobjectApp(["/usr/bin/python3", fixture("accounts.py"), "restart", cache] + credentials)
        #expect(restarted["outcome"] as? String == "done", "\(restarted)")
        expectReadableAccount(restarted, listing: 0)
        let silent = try #require(restarted["silent"] as? [String: Any], "the account from the file, after a restart, renews: \(restarted)")
        #expect(silent["username"] as? String == server.userEmail && silent["hasAccessToken"] as? Bool == true)
        #expect((restarted["accountAfterSilent"] as? [String: Any])?["username"] as? String == server.userEmail)
        #expect(restarted["signedOut"] as? Bool == true, "\(restarted)")
        #expect(restarted["leftAfterSignOut"] as? Bool == false, "\(restarted)")
    }

    @Test("GJS, fatal criticals: the accounts listed after a sign-in and after a restart read across System.gc() and renew silently; sign-out leaves none")
    func gjsAccountsSurviveCollectionAndRestart() async throws {
        let (cache, folder) = freshCacheFile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try await gobjectApp(["/usr/bin/gjs", fixture("accounts.js"), "first", cache] + credentials)
        #expect(first["outcome"] as? String == "done", "\(first)")
        #expect(first["signedInAs"] as? String == server.userEmail)
        expectReadableAccount(first, listing: 0)
        #expect((first["silent"] as? [String: Any])?["username"] as? String == server.userEmail, "\(first)")

        let restarted = try await gobjectApp(["/usr/bin/gjs", fixture("accounts.js"), "restart", cache] + credentials)
        #expect(restarted["outcome"] as? String == "done", "\(restarted)")
        expectReadableAccount(restarted, listing: 0)
        #expect((restarted["silent"] as? [String: Any])?["username"] as? String == server.userEmail, "\(restarted)")
        #expect(restarted["signedOut"] as? Bool == true, "\(restarted)")
        #expect(restarted["leftAfterSignOut"] as? Bool == false, "\(restarted)")
    }

    @Test("Python and GJS, fatal criticals: the account of a sign-in on another device (device code, a file token cache), after a restart: listed, read across the collector, renewed silently, signed out")
    func deviceCodeAccountAfterRestart() async throws {
        for (interpreter, extension_) in [("/usr/bin/python3", "py"), ("/usr/bin/gjs", "js")] {
            let (cache, folder) = freshCacheFile()
            defer { try? FileManager.default.removeItem(at: folder) }
            let signedIn = try await gobjectApp(
                [interpreter, fixture("devicecode.\(extension_)"), server.deviceClientID, server.issuer.absoluteString] + deviceApproval,
                environment: ["DEVICECODE_TOKEN_CACHE": "file:\(cache)"])
            #expect(signedIn["outcome"] as? String == "success", "\(interpreter): \(signedIn)")
            let restarted = try await gobjectApp(
                [interpreter, fixture("accounts.\(extension_)"), "restart", cache, server.deviceClientID, server.issuer.absoluteString,
                 server.username, server.password])
            #expect(restarted["outcome"] as? String == "done", "\(interpreter): \(restarted)")
            expectReadableAccount(restarted, listing: 0)
            #expect((restarted["silent"] as? [String: Any])?["username"] as? String == server.userEmail, "\(interpreter): \(restarted)")
            #expect(restarted["signedOut"] as? Bool == true && restarted["leftAfterSignOut"] as? Bool == false, "\(interpreter): \(restarted)")
        }
    }

    @Test("Python: two applications in one process each get their own calls' signals only, a failing call's did-fail included")
    func pythonApplicationsKeepTheirOwnSignals() async throws {
        let report = try await gobjectApp(["/usr/bin/python3", fixture("accounts.py"), "two-apps", "-"] + credentials)
        #expect(report["outcome"] as? String == "done", "\(report)")
        let inProgress = 3  // WVH_ERROR_SESSION_ALREADY_IN_PROGRESS
        #expect((report["bFirst"] as? [String: Any])?["code"] as? Int == inProgress, "\(report)")
        #expect(report["aFirst"] as? String == "success", "\(report)")
        #expect((report["aSecond"] as? [String: Any])?["code"] as? Int == inProgress, "\(report)")
        #expect(report["bSecondIsCancelled"] as? Bool == true, "\(report)")
        let signals = report["signals"] as? [String: [String]] ?? [:]
        let a = signals["A"] ?? [], b = signals["B"] ?? []
        // A: its sign-in's pages and did-complete, then its second call's did-fail; never B's.
        let aWhenBFailed = report["aSignalsWhenBFailed"] as? [String] ?? []
        #expect(!aWhenBFailed.contains { $0.hasPrefix("did-fail") }, "B's failure is not A's: \(aWhenBFailed)")
        let aComplete = try #require(a.firstIndex(of: "did-complete"), "\(a)")
        #expect(a.prefix(aComplete).allSatisfy { $0 == "did-start-load" || $0 == "did-finish-load" }, "\(a)")
        #expect(Array(a.suffix(from: aComplete + 1)) == ["did-fail \(inProgress)"], "A's second call failed, once; B's cancel is not A's: \(a)")
        // B: its first call's did-fail, then its second sign-in's pages and its own cancel; never A's.
        #expect(b.first == "did-fail \(inProgress)", "\(b)")
        #expect(!b.contains("did-complete"), "A's completion is not B's: \(b)")
        let bWhenAFailed = report["bSignalsWhenAFailed"] as? [String] ?? []
        #expect(bWhenAFailed.filter { $0.hasPrefix("did-fail") }.count == 1, "A's second failure is not B's: \(bWhenAFailed)")
        #expect(b.last == "did-fail 2", "B's cancel (WVH_ERROR_CANCELED) ends B's signals: \(b)")
        #expect(b.filter { $0.hasPrefix("did-fail") }.count == 2, "\(b)")
    }

    @Test("Python and GJS: the lower level returns the URL an error redirect (error=access_denied) reached, with did-complete, not an error")
    func webAuthSessionReturnsAnErrorRedirect() async throws {
        let expected = "http://127.0.0.1:23686/session-callback?error=access_denied&error_description=Not+this+time&state=the-state"
        let python = try await gobjectApp(["/usr/bin/python3", fixture("websession.py"), "denied"])
        #expect(python["outcome"] as? String == "success", "\(python)")
        #expect(python["url"] as? String == expected, "\(python)")
        #expect((python["signals"] as? [String])?.last == "did-complete", "\(python)")
        #expect((python["signals"] as? [String])?.contains("did-fail") == false, "\(python)")
        let gjs = try await gobjectApp(["/usr/bin/gjs", fixture("websession.js"), "denied"])
        #expect(gjs["outcome"] as? String == "success", "\(gjs)")
        #expect(gjs["url"] as? String == expected, "\(gjs)")
        #expect((gjs["signals"] as? [String])?.last == "did-complete", "\(gjs)")
    }

    /// Issue 41, item 2: each entry of the typelib used from Python and from GJS. A new function,
    /// method, property, signal or virtual method that no fixture of either language uses fails
    /// here (the script reads the typelib, not a list).
    @Test("Every function, method, property, signal and virtual method of WebviewHost-3.0 and -4.0 is used by a Python and a GJS fixture")
    func typelibCoveredFromPythonAndGJS() async throws {
        for version in ["3.0", "4.0"] {
            let report = try await gobjectApp(["/usr/bin/python3", fixture("coverage.py"), version])
            #expect((report["entries"] as? Int ?? 0) > 100, "WebviewHost-\(version) read: \(report)")
            #expect(report["uncovered"] as? [String] == [], "WebviewHost-\(version): \(report)")
        }
    }

    /// The two signals of a sign-in leaving the view, from the languages that connect them: the
    /// person's click on "Continue in your browser" (the desktop's browser, scripted, then signs
    /// in), and a page of the authority's that goes to Microsoft's broker app (msauth://) by its
    /// own timer. Each app also holds a second application, idle, which must get nothing.
    @Test("Python (GTK 3) and GJS (GTK 4), fatal criticals: \"Continue in your browser\" gives will-switch-to-system-browser with the page, then the browser's sign-in; a page going to msauth:// gives will-switch-to-broker-app with that URI; an idle application beside gets neither")
    func switchSignalsFromPythonAndGJS() async throws {
        let browser = "python3 \(GlewlwydServer.browserScript.path) %u"
        let login = ["GLEWLWYD_USERNAME": server.username, "GLEWLWYD_PASSWORD": server.password]
        for interpreter in ["/usr/bin/python3", "/usr/bin/gjs"] {
            let script = fixture(interpreter.hasSuffix("gjs") ? "switch.js" : "switch.py")
            // The person signs in in the desktop's (scripted) browser, which takes the user name
            // and password from its environment: the app names only its client and authority.
            let moved = try await gobjectApp(
                [interpreter, script, "browser", server.clientID, server.issuer.absoluteString], environment: login, browserCommand: browser)
            #expect(moved["outcome"] as? String == "success", "\(interpreter): \(moved)")
            #expect(moved["username"] as? String == server.userEmail, "\(interpreter): \(moved)")
            let clickedOn = try #require(moved["clickedOn"] as? String, "\(interpreter): the login page loaded and the button was found: \(moved)")
            let a = (moved["signals"] as? [String: [String]])?["A"] ?? []
            let switches = a.indices.filter { a[$0].hasPrefix("will-switch-to-system-browser ") }
            #expect(switches.count == 1, "\(interpreter): one move to the browser: \(a)")
            if let at = switches.first {
                #expect(a[at].dropFirst("will-switch-to-system-browser ".count).hasPrefix(clickedOn),
                        "\(interpreter): it names the page the view showed: \(a[at]) (clicked on \(clickedOn))")
                #expect(a.prefix(at).contains("did-finish-load"), "\(interpreter): after the view's steps: \(a)")
                #expect(a.last?.hasPrefix("did-complete http://127.0.0.1:23685/embedded-callback?") == true && a.last?.contains("code=") == true,
                        "\(interpreter): then the browser's callback: \(a)")
            }
            #expect(!a.contains { $0.hasPrefix("did-fail") || $0.hasPrefix("will-switch-to-broker-app") }, "\(interpreter): \(a)")
            #expect((moved["signals"] as? [String: [String]])?["B"] == [], "\(interpreter): the idle application: \(moved)")
            #expect(moved["visibleWindows"] as? [String] == [], "\(interpreter): the library's window is gone: \(moved)")

            let brokered = try await gobjectApp([interpreter, script, "broker"])
            let brokerURI = try #require(brokered["brokerURI"] as? String)
            #expect(brokered["outcome"] as? String == "error" && brokered["isCancelled"] as? Bool == true, "\(interpreter): \(brokered)")
            let b = (brokered["signals"] as? [String: [String]])?["A"] ?? []
            #expect(b.filter { $0.hasPrefix("will-switch-to-broker-app") } == ["will-switch-to-broker-app \(brokerURI)"], "\(interpreter): \(b)")
            #expect(b.first == "did-start-load" && b.last?.hasPrefix("did-fail ") == true, "\(interpreter): the app's cancel ends it: \(b)")
            #expect(!b.contains { $0.hasPrefix("will-switch-to-system-browser") || $0.hasPrefix("did-complete") }, "\(interpreter): \(b)")
            #expect((brokered["signals"] as? [String: [String]])?["B"] == [], "\(interpreter): the idle application: \(brokered)")
            #expect(brokered["visibleWindows"] as? [String] == [], "\(interpreter): \(brokered)")
        }
    }

    /// Issue 40 from C's API: an app at work names its plain-http intranet page for Negotiate
    /// (`wvh_allow_negotiate`) before any web view, prewarms the library's window
    /// (`wvh_public_client_application_prewarm`), and the page gets the person's Kerberos ticket
    /// from a real KDC (`kinit`); the list can no longer change once WebKit's network process runs.
    @Test("Python (GTK 3) and GJS (GTK 4): WebviewHost.allow_negotiate names a plain-http intranet page, which then gets the person's Kerberos ticket in the library's window, nobody asked; a wrong origin and a call after prewarm() are refused (INVALID_PARAMETERS); prewarm() names the embedded view")
    func negotiateAndPrewarmFromPythonAndGJS() async throws {
        let invalidParameters = 5  // WVH_ERROR_INVALID_PARAMETERS
        for command in [["/usr/bin/python3", fixture("negotiate.py")], ["/usr/bin/gjs", fixture("negotiate.js")]] {
            let realm = try await KerberosRealm.start()
            defer { realm.stop() }
            try await realm.kinit(cache: "alice")
            var environment = realm.environment(cache: "alice")
            environment["SOUP_GSSAPI_TRUSTED_URIS"] = ""  // what the app's call sets is all there is
            let report = try await gobjectApp(command + [realm.base], environment: environment)
            func error(_ key: String) -> [String: Any] { (report[key] as? [String: Any])?["error"] as? [String: Any] ?? [:] }
            #expect(error("refused")["code"] as? Int == invalidParameters, "\(command[0]): \(report)")
            #expect((error("refused")["message"] as? String)?.contains("ftp://intranet.example.com") == true, "it names the origin: \(report)")
            #expect((report["allowed"] as? [String: Any])?["added"] as? Bool == true, "\(command[0]): \(report)")
            #expect(report["prewarmed"] as? String == "embedded", "\(command[0]): \(report)")
            #expect(error("late")["code"] as? Int == invalidParameters, "after prewarm() the list cannot reach WebKit: \(report)")
            #expect(report["outcome"] as? String == "success", "\(command[0]): \(report)")
            #expect(report["url"] as? String == "http://127.0.0.1:23688/intranet-callback?code=kerberos-alice&state=intranet-state",
                    "\(command[0]): the page's keytab accepted alice's ticket: \(report)")
            let accepted = realm.requests.filter { $0["outcome"] == "accepted" }
            #expect(accepted.count == 1 && accepted.first?["scheme"] == "Negotiate", "\(command[0]): \(realm.requests)")
            #expect(report["visibleWindows"] as? [String] == [], "\(command[0]): \(report)")
        }
    }

    /// Issue 40 from C's API: `wvh_use_desktop_proxy` gives an app's own view the desktop's proxy
    /// without the user name and password its URI carries, which answer the proxy's first 407.
    @Test("Python and GJS: the app's own view behind a desktop proxy whose URI carries a user name and password, given WebviewHost.use_desktop_proxy: the lower level's page loads through the proxy, nobody asked")
    func desktopProxyForTheAppsViewFromPythonAndGJS() async throws {
        for command in [["/usr/bin/python3", fixture("websession.py"), "desktop-proxy"], ["/usr/bin/gjs", fixture("websession.js"), "desktop-proxy"]] {
            let proxy = try await RecordingProxy(basicAuth: ("alice-proxy", "proxy-secret"))
            defer { proxy.stop() }
            let report = try await gobjectApp(command, environment: [
                "http_proxy": "http://alice-proxy:proxy-secret@127.0.0.1:\(proxy.port)", "no_proxy": "", "XDG_CURRENT_DESKTOP": "",
            ])
            #expect(report["applied"] as? Bool == true, "\(command[0]): \(report)")
            #expect(report["outcome"] as? String == "success", "\(command[0]): \(report)")
            #expect(report["url"] as? String == "http://127.0.0.1:23686/session-callback?code=the-code&state=the-state", "\(command[0]): \(report)")
            #expect(proxy.requests.contains { $0.hasPrefix("GET http://127.0.0.1:") && $0.contains("/authorize") },
                    "\(command[0]): the page went through the proxy: \(proxy.requests)")
        }
    }

    @Test("GJS: the lower level's cancel() while its page shows ends it with WVH_ERROR_CANCELED, did-fail last, no window left")
    func gjsWebAuthSessionCancel() async throws {
        let gjs = try await gobjectApp(["/usr/bin/gjs", fixture("websession.js"), "cancel"])
        #expect(gjs["outcome"] as? String == "error" && gjs["isCanceled"] as? Bool == true, "\(gjs)")
        #expect((gjs["cancelledOn"] as? String)?.contains("/authorize") == true, "cancelled while the page showed: \(gjs)")
        let signals = gjs["signals"] as? [String] ?? []
        #expect(signals.last?.hasPrefix("did-fail") == true && !signals.contains("did-complete"), "\(signals)")
        #expect(gjs["visibleWindows"] as? [String] == [], "the library's window is gone when the promise settles: \(gjs)")
    }

    /// Every WvhInteractiveParameters property, the application's construct properties, the error
    /// domain and a provider's unregistering, from both languages, with nothing signed in: the
    /// object properties set from objects only the parameters hold (a reference the binding
    /// frees that it does not own aborts the app under fatal criticals).
    @Test("Python and GJS, fatal criticals: every parameter set (windows, views and policies the parameters alone hold), collected, read back twice and cleared; the application's properties; the error domain; a provider unregistered both ways")
    func valuesFromPythonAndGJS() async throws {
        let parameters: [String: Any] = [
            "scopes": ["openid", "profile", "offline_access"], "login-hint": "alice@example.com", "prompt": "select_account",
            "webview-type": 2, "parent-window": "values", "window-title": "Sign in to Values", "window-width": 640,
            "window-height": 480, "timeout": 42.5, "provider-id": "values-provider",
        ]
        let application = [
            "client-id": "values-client", "authority": "https://login.example.com/tenant", "redirect-uri": "http://127.0.0.1/callback",
            "token-cache": "memory", "network-proxy": "http://127.0.0.1:3128",
        ]
        for (command, view, policy) in [
            (["/usr/bin/python3", fixture("values.py")], "WebView", "Policy"), (["/usr/bin/gjs", fixture("values.js")], "WebKitWebView", "Gjs_Policy"),
        ] {
            let report = try await gobjectApp(command)
            for key in ["parameters", "parameters-again"] {
                let read = report[key] as? [String: Any] ?? [:]
                for (name, value) in parameters {
                    #expect(read[name].map { "\($0)" } == "\(value)", "\(command[0]) \(key) \(name): \(read)")
                }
                #expect(read["ephemeral"] as? Bool == true, "\(command[0]) \(key): \(read)")
                #expect(read["security-keys"] as? Bool == false && read["security-keys-in-custom-webview"] as? Bool == true, "\(command[0]) \(key): \(read)")
                #expect(read["custom-webview"] as? String == view, "\(command[0]) \(key): \(read)")
                #expect(read["selection-policy"] as? String == policy, "\(command[0]) \(key): \(read)")
            }
            #expect(report["security-key-defaults"] as? [Bool] == [true, false], "the Swift API's defaults: \(report)")
            #expect(report["parameters-cleared"] as? [Bool] == [true, true, true, true, true], "\(command[0]): \(report)")
            #expect(report["application"] as? [String: String] == application, "\(command[0]): \(report)")
            #expect(report["error-domain"] as? String == "webview-host-error-quark", "\(command[0]): \(report)")
            if command[0].hasSuffix("python3") {
                #expect(report["properties-without-getter"] as? [String] == [], "each value's property has its getter: \(report)")
            }
            #expect(report["registered"] as? Bool == true && report["unregistered"] as? Bool == true, "\(command[0]): \(report)")
            #expect(report["unregistered-again"] as? Bool == false, "a second unregister finds nothing: \(report)")
            #expect(report["unregistered-by-method"] as? Bool == true, "\(command[0]): \(report)")
        }
    }
}
