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
import WebviewHost

/// The measured side: one sign-in in this process, printing the same lines as the floor
/// (`loaded`, `navigated`, `resumed`, `hwm`), so both are read by one parser.
enum Child {
    static func monotonicNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// A `/proc/self/status` figure in kB (`VmHWM`: the peak resident set, `VmRSS`: now).
    static func statusKiB(_ field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    /// Prints `hwm <kB>` (`VmHWM`). With `WEBVIEW_HOST_BENCH_SMAPS=<file>` in the environment, also
    /// copies `/proc/self/smaps` there first: where the memory is, mapping by mapping.
    static func sayPeakMemory() {
        if let path = ProcessInfo.processInfo.environment["WEBVIEW_HOST_BENCH_SMAPS"],
            let smaps = FileHandle(forReadingAtPath: "/proc/self/smaps")?.readDataToEndOfFile()
        {
            _ = FileManager.default.createFile(atPath: path, contents: smaps)
        }
        say("hwm \(statusKiB("VmHWM"))")
    }

    /// The size of every window the children show: the floor's (Baselines/floor.c).
    static let windowSize = (width: Int32(480), height: Int32(640))

    /// The app's own window and `WebKitWebView`, shown, for the caller's-view variants.
    @MainActor
    static func makeCallerView() -> UnsafeMutableRawPointer {
        let view = UnsafeMutableRawPointer(webkit_web_view_new()!)
        _ = Toolkit.showWindow(with: view)
        return view
    }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    nonisolated(unsafe) static var redirectPrefix = ""

    /// Where the redirect navigation reaches the UI process, before any handler runs (an
    /// emission hook, as in the floor).
    static let navigationHook: GSignalEmissionHook = { _, _, values, _ in
        guard let values, let decision = g_value_get_object(values + 1) else { return 1 }
        if isRedirect(decision, type: UInt32(g_value_get_enum(values + 2))) { Child.say("navigated \(Child.monotonicNanoseconds())") }
        return 1
    }

    /// Whether a `decide-policy` decision is the navigation to the redirect URI.
    static func isRedirect(_ decision: UnsafeMutableRawPointer, type: UInt32) -> Bool {
        guard type == WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION.rawValue,
            let action = webkit_navigation_policy_decision_get_navigation_action(wvh_navigation_policy_decision(decision)),
            let uri = webkit_uri_request_get_uri(webkit_navigation_action_get_request(action))
        else { return false }
        return String(cString: uri).hasPrefix(redirectPrefix)
    }

    nonisolated(unsafe) static var swiftFloorWindow: UnsafeMutableRawPointer?
    nonisolated(unsafe) static var swiftFloorLoaded = false

    /// `swift-floor`: the floor's program (Baselines/floor.c) written in Swift, in this binary. The
    /// Swift runtime and Foundation are loaded as in the library's variants, but nothing of
    /// WebviewHost runs: what separates it from the C floor is what any Swift program pays.
    @MainActor
    static func runSwiftFloor(page: URL, redirect: URL) -> Never {
        Toolkit.initialize()
        redirectPrefix = redirect.absoluteString
        let view = webkit_web_view_new()!
        g_signal_add_emission_hook(g_signal_lookup("decide-policy", webkit_web_view_get_type()), 0, navigationHook, nil, nil)
        let decide: @convention(c) (gpointer?, gpointer?, UInt32, gpointer?) -> gboolean = { _, decision, type, _ in
            guard let decision, Child.isRedirect(decision, type: type) else { return 0 }
            webkit_policy_decision_ignore(wvh_policy_decision(decision))
            MainActor.assumeIsolated { Toolkit.destroyWindow(Child.swiftFloorWindow!) }
            Child.say("resumed \(Child.monotonicNanoseconds())")
            Child.sayPeakMemory()
            exit(0)
        }
        let loadChanged: @convention(c) (gpointer?, UInt32, gpointer?) -> Void = { _, event, _ in
            guard event == WEBKIT_LOAD_FINISHED.rawValue, !Child.swiftFloorLoaded else { return }
            Child.swiftFloorLoaded = true
            Child.say("loaded \(Child.monotonicNanoseconds())")
        }
        g_signal_connect_data(view, "decide-policy", unsafeBitCast(decide, to: GCallback.self), nil, nil, GConnectFlags(rawValue: 0))
        g_signal_connect_data(view, "load-changed", unsafeBitCast(loadChanged, to: GCallback.self), nil, nil, GConnectFlags(rawValue: 0))
        webkit_web_view_load_uri(wvh_web_view(UnsafeMutableRawPointer(view)), page.absoluteString)
        swiftFloorWindow = Toolkit.showWindow(with: UnsafeMutableRawPointer(view))
        Toolkit.runMainLoop()
    }

    /// `page`: the library's window on the page of ``WebAuthnBenchmark`` (the environment
    /// names the virtual authenticator); prints `webauthn-us <microseconds>` for each `get()` the
    /// page timed, read from the redirect's query.
    @MainActor
    static func runWebAuthn(page: URL, redirect: URL) -> Never {
        Toolkit.initialize()
        MainLoopBridge.install()
        WebviewProviderRegistry.register(EmbeddedWebviewProvider())
        let session = WebAuthSession(
            redirectURI: redirect,
            parameters: WebviewParameters(webviewType: .embedded, windowSize: .init(width: Int(windowSize.width), height: Int(windowSize.height))))
        Task { @MainActor in
            do {
                _ = try await session.prepare()
                let response = try await session.start(authorizationURL: page, expectedState: "s")
                let query = URLComponents(url: response.callbackURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
                if let error = query.first(where: { $0.name == "error" })?.value { say("error \(error)") }
                for time in (query.first { $0.name == "times" }?.value ?? "").split(separator: ",") { say("webauthn-us \(time)") }
            } catch {
                say("error \(error)")
            }
            exit(0)
        }
        Toolkit.runMainLoop()
    }

    /// `own-window` (the library's window), `own-window-security-keys` (the same with a security
    /// key reachable: the WebAuthn bridge in the view), `own-window-warm` (the same after `prewarm()` and a
    /// pause), or `caller-view` (a window and view made here).
    @MainActor
    static func runEmbedded(ownWindow: Bool, warm: Bool, page: URL, redirect: URL) -> Never {
        Toolkit.initialize()
        MainLoopBridge.install()
        WebviewProviderRegistry.register(EmbeddedWebviewProvider())
        redirectPrefix = redirect.absoluteString
        g_type_class_ref(webkit_web_view_get_type())  // its signals exist once the class does
        g_signal_add_emission_hook(g_signal_lookup("decide-policy", webkit_web_view_get_type()), 0, navigationHook, nil, nil)
        // The library's window at the floor's size (its default is 520x680), so that the memory
        // figures compare the same pixels.
        let parameters = ownWindow
            ? WebviewParameters(webviewType: .embedded, windowSize: .init(width: Int(windowSize.width), height: Int(windowSize.height)))
            : WebviewParameters(customWebview: WebviewHandle(address: makeCallerView()))
        let session = WebAuthSession(redirectURI: redirect, parameters: parameters)
        var loaded = false
        // The session's own observation, as the README shows apps (a NotificationCenter observer
        // would add its own code pages, about 0.4 MiB, to what is measured as the library's).
        let observation = session.observe { event in
            if case .didFinishLoad = event, !loaded {
                loaded = true
                say("loaded \(monotonicNanoseconds())")
            }
        }
        Task { @MainActor in
            do {
                if warm {
                    EmbeddedWebviewProvider.prewarm(authorityHost: page.host)
                    try await Task.sleep(for: .seconds(1))  // the app showed its sign-in button a moment ago
                }
                say("started \(monotonicNanoseconds())")
                _ = try await session.prepare()
                _ = try await session.start(authorizationURL: page, expectedState: "s")
                say("resumed \(monotonicNanoseconds())")
            } catch {
                say("error \(error)")
            }
            observation.invalidate()
            sayPeakMemory()
            exit(0)
        }
        Toolkit.runMainLoop()
    }
}
