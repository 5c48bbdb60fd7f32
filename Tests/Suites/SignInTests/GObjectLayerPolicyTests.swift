import Foundation
import ScenarioSupport
import Testing

/// Issue 34: the app's own choice of provider through the GObject layer, a `WvhSelectionPolicy`
/// set as a call's `selection-policy`: in Python (`Tests/Fixtures/GObject/policy.py`, GTK 3) and
/// GJS (`policy.js`, GTK 4), signing in at the suite's Glewlwyd server. Each fixture cancels a call
/// whose page shows where its policy should have kept it out, so an ignored policy fails at once.
extension GlewlwydSignInTests {
    /// Runs policy.py `mode` as the app and returns what it printed.
    func pythonPolicyApp(_ mode: String) async throws -> [String: Any] {
        try await gobjectApp(["/usr/bin/python3", fixture("policy.py"), mode] + credentials)
    }

    @Test("Python: a policy chooses a provider the default policy would not (the Python plugin); a concurrent call's policy refuses; a third concurrent call without one gets the process's default policy; each asked once, with its own parameters")
    func pythonPolicyChoosesTheProvider() async throws {
        let report = try await pythonPolicyApp("choose")
        #expect(report["unexpectedPages"] as? [String] == [], "no call showed the library's window: \(report)")
        let chooser = try #require(report["chooser"] as? [String: Any], "\(report)")
        #expect(chooser["outcome"] as? String == "success", "\(chooser)")
        #expect(chooser["username"] as? String == server.userEmail)
        #expect(report["callsAtCallback"] as? [String] == ["start", "dismiss"], "signed in through python-browser: \(report)")
        #expect(report["signals"] as? [String] == ["did-start-load", "did-finish-load", "did-complete"], "\(report)")

        let refuser = try #require(report["refuser"] as? [String: Any], "\(report)")
        let error = try #require(refuser["error"] as? [String: Any], "the refusing call failed: \(refuser)")
        #expect(error["domain"] as? String == "webview-host-error-quark" && error["code"] as? Int == 4, "WVH_ERROR_PROVIDER_UNAVAILABLE: \(error)")
        #expect(error["message"] as? String == "This app signs in at the kiosk only.", "the policy's own message: \(error)")
        #expect(refuser["windows"] as? [String] == [], "nothing shown")

        // No policy of its own: the default policy, which refuses AUTHENTICATION_SESSION without a
        // browser; neither concurrent call's policy (python-browser, or the kiosk's refusal).
        let bystander = try #require(report["bystander"] as? [String: Any], "\(report)")
        let defaultError = try #require(bystander["error"] as? [String: Any], "the call without a policy failed: \(bystander)")
        #expect(defaultError["code"] as? Int == 4, "WVH_ERROR_PROVIDER_UNAVAILABLE: \(defaultError)")
        let defaultMessage = defaultError["message"] as? String ?? ""
        #expect(defaultMessage.contains("system-browser") && !defaultMessage.contains("kiosk"), "the default policy's message: \(defaultMessage)")
        #expect(bystander["windows"] as? [String] == [], "nothing shown")

        let asked = try #require(report["asked"] as? [String: [[String: Any]]], "\(report)")
        for name in ["chooser", "refuser"] {
            let calls = asked[name] ?? []
            #expect(calls.count == 1, "\(name)'s policy asked once, for its own call only: \(asked)")
            #expect(calls.first?["parameters"] as? Bool == true, "\(name): the call's own InteractiveParameters")
            #expect(calls.first?["mainThread"] as? Bool == true, "\(name): asked on the main thread")
        }
        let providers = asked["chooser"]?.first?["providers"] as? [[String: Any]] ?? []
        let byID = Dictionary(providers.compactMap { info in (info["id"] as? String).map { ($0, info) } }, uniquingKeysWith: { a, _ in a })
        #expect(Set(byID.keys).isSuperset(of: ["python-browser", "embedded", "system-browser"]), "\(providers)")
        let python = byID["python-browser"] ?? [:]
        #expect(python["kind"] as? String == "other" && python["priority"] as? Int == 1 && python["available"] as? Bool == true, "\(python)")
        #expect(python["displayName"] as? String == "A browser written in Python" && python["requiresDisplay"] as? Bool == false, "\(python)")
        let embedded = byID["embedded"] ?? [:]
        #expect(embedded["kind"] as? String == "embedded-view" && embedded["supportsCustomWebview"] as? Bool == true, "\(embedded)")
        #expect(embedded["available"] as? Bool == true && embedded["requiresDisplay"] as? Bool == true, "\(embedded)")
        let browser = byID["system-browser"] ?? [:]
        #expect(browser["available"] as? Bool == false && (browser["unavailableReason"] as? String)?.isEmpty == false,
                "the test desktop has no browser, and the policy is told why: \(browser)")
        #expect(report["visibleWindows"] as? [String] == [])
        #expect(report["getterMismatches"] == nil, "each ProviderInfo getter gives its property: \(report)")
        let invoked = report["invoked"] as? [String: Any] ?? [:]
        #expect(invoked["chosen"] as? String == "python-browser" && invoked["asked"] as? Int == 1, "select_provider from Python: \(report)")
        #expect((invoked["ids"] as? [String]).map { Set($0).isSuperset(of: ["python-browser", "embedded", "system-browser"]) } == true,
                "the providers kept past their call read again after gc.collect(): \(report)")
    }

    @Test("Python: a policy that returns None leaves the choice to the default policy (the library's window for an EMBEDDED call), which signs in")
    func pythonPolicyLeavesTheDefault() async throws {
        let report = try await pythonPolicyApp("default")
        #expect(report["outcome"] as? String == "success", "\(report)")
        #expect(report["username"] as? String == server.userEmail)
        #expect(report["providerCalls"] as? [String] == [], "python-browser was not chosen")
        #expect((report["views"] as? [Bool])?.contains(true) == true, "the pages showed in the library's view: \(report)")
        let asked = (report["asked"] as? [String: [[String: Any]]])?["default"] ?? []
        #expect(asked.count == 1 && asked.first?["parameters"] as? Bool == true, "asked once, with the call's parameters: \(report)")
        #expect(report["visibleWindows"] as? [String] == [], "the library's window is gone when the callback runs")
    }

    @Test("Python: a policy's GLib.Error fails the call with its message (WVH_ERROR_INVALID_PARAMETERS kept, any other as PROVIDER_UNAVAILABLE), an unregistered id fails naming it, a WebAuthSession's policy too; nothing shown")
    func pythonPolicyRefuses() async throws {
        let started = ContinuousClock.now
        let report = try await pythonPolicyApp("refuse")
        #expect(report["unexpectedPages"] as? [String] == [], "no call showed a page: \(report)")
        func error(_ name: String) -> [String: Any] {
            ((report[name] as? [String: Any])?["error"] as? [String: Any]) ?? [:]
        }
        let invalid = error("invalid")
        #expect(invalid["domain"] as? String == "webview-host-error-quark" && invalid["code"] as? Int == 5, "\(report)")
        #expect(invalid["message"] as? String == "Sign-in is not allowed with these parameters.", "\(invalid)")
        let foreign = error("foreign")
        #expect(foreign["domain"] as? String == "webview-host-error-quark" && foreign["code"] as? Int == 4, "\(report)")
        #expect(foreign["message"] as? String == "The kiosk is closed.", "\(foreign)")
        let unregistered = error("unregistered")
        #expect(unregistered["domain"] as? String == "webview-host-error-quark" && unregistered["code"] as? Int == 4, "\(report)")
        let message = unregistered["message"] as? String ?? ""
        #expect(message.contains("selection policy chose \"no-such-provider\"") && message.contains("not registered")
                && message.contains("python-browser"), "names the id and what is registered: \(message)")
        for name in ["invalid", "foreign", "unregistered"] {
            #expect((report[name] as? [String: Any])?["windows"] as? [String] == [], "\(name): no window")
        }
        let session = error("session")
        #expect(session["domain"] as? String == "webview-host-error-quark" && session["code"] as? Int == 4, "\(report)")
        #expect(session["message"] as? String == "No sign-in from this page.", "\(session)")
        #expect(report["visibleWindows"] as? [String] == [])
        #expect(ContinuousClock.now - started < .seconds(100), "no call waited for a timeout")
    }

    @Test("Vala, GTK 4: a policy written in Vala compiles against the .vapi; through the interface its NULL is the default choice and its thrown WebviewHost.Error comes back")
    func valaPolicyImplementsTheInterface() async throws {
        let program = try await compiled(
            "policy.vala", with: ["valac", "--vapidir=PREFIX/share/vala/vapi", "--pkg", "webviewhost-gtk4", "-X", "-w", "-o", "PROGRAM", "SOURCE"])
        let report = try await gobjectApp([program])
        #expect(report.keys.contains("chosen") && report["chosen"] is NSNull, "NULL: the default policy's choice: \(report)")
        #expect(report["refused"] as? String == "webview-host-error-quark 4 This terminal signs in at the kiosk only.", "\(report)")
        #expect(report["asked"] as? Int == 2, "\(report)")
    }

    @Test("GJS, GTK 4: a policy written in JavaScript puts an AUTHENTICATION_SESSION call in the library's embedded window, which signs in")
    func gjsPolicyChoosesTheEmbeddedView() async throws {
        let report = try await gobjectApp(["/usr/bin/gjs", fixture("policy.js")] + credentials)
        #expect(report["outcome"] as? String == "success", "\(report)")
        #expect(report["username"] as? String == server.userEmail)
        #expect(report["asked"] as? Int == 2, "the call's policy, then the invoker's: \(report)")
        #expect(report["sawParameters"] as? Bool == true, "\(report)")
        #expect((report["providerIDs"] as? [String])?.contains("embedded") == true, "\(report)")
        #expect(report["getterMismatches"] as? [String] == [], "each ProviderInfo getter gives its property: \(report)")
        let invoked = report["invoked"] as? [String: Any] ?? [:]
        #expect(invoked["chosen"] as? String == "embedded" && invoked["asked"] as? Int == 1, "select_provider from JavaScript: \(report)")
        #expect((invoked["ids"] as? [String]).map { Set($0).isSuperset(of: ["embedded", "system-browser"]) } == true,
                "the providers kept past their call read again after System.gc(): \(report)")
        #expect(report["viewTitle"] as? String == "Signed in by the policy's choice", "the page showed in the library's GTK 4 window")
    }
}
