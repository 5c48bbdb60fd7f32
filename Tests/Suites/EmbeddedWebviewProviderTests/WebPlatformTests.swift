import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// The sign-in surface takes from a page only what the article "The sign-in surface" says
/// (issue 27, item 1): one probe page (`Tests/Fixtures/WebPlatform/probe.js`) tries what sign-in
/// front ends use (storage of every kind, workers, Web Crypto, messaging between windows and
/// frames, cookies including `SameSite=None; Secure` on HTTPS, WebAssembly, EventSource,
/// WebSocket...) in a bare WebKitGTK view of the same process, then as the sign-in page; whatever
/// the bare view can do, the sign-in view can, except the rows the article documents, where the
/// sign-in view shows exactly the documented value. Both toolkits, X11 and Wayland, the library's
/// window and a caller's view, an ephemeral data store (nothing on disk) and a persistent one.
@Suite("The sign-in view runs what a bare view runs, but for the documented rows", .serialized, .desktop)
struct WebPlatformTests {
    /// The article's rows that take something from a page, by the probe's name: what the sign-in
    /// page sees instead.
    static let documented: [String: String] = [
        "getUserMedia": "absent",  // enable-media-stream off
        "webRTC": "absent",  // enable-webrtc off
        "encryptedMedia": "absent",  // enable-encrypted-media off
        "fullscreenAPI": "false",  // enable-fullscreen off
        "audioAutoplay": "error NotAllowedError",  // media-playback-requires-user-gesture on
        // Added, not taken: the page watch's navigator.credentials, which hands WebAuthn to the
        // browser (WebKitGTK itself has none).
        "credentialsAPI": "ok",
    ]

    /// The scenario's failure when a view stopped on its way from the HTTP probe page to the
    /// HTTPS one: the bare view never finished, or the sign-in's view is still loading a probe
    /// page, or idle on the HTTP one (every probe reported, then the page's POST of
    /// its results or its `location.href` to the HTTPS page never went on: seen once, GTK 4 on
    /// Wayland in a caller's view, with two full runs of the project on two cores).
    static func isStallBetweenProbePages(_ description: String) -> Bool {
        let loadingAProbePage = description.contains("/probe?") && description.contains("loading true")
        let idleOnTheHTTPProbePage = description.range(of: #"the view: URI "http://127\.0\.0\.1:[0-9]+/probe\?"#, options: .regularExpression) != nil
        return description.contains("the bare view never finished the probe")
            || (description.contains("the session did not end") && (loadingAProbePage || idleOnTheHTTPProbePage))
    }

    static let setups: [(mode: String, store: String)] = product(["window", "view"], ["ephemeral", "persistent"]).map { ($0.0, $0.1) }

    @Test("Each probe gives the bare view's answer, or the documented one", arguments: Platform.standard, setups)
    func signInViewRunsWhatABareViewRuns(_ platform: Platform, _ setup: (mode: String, store: String)) async throws {
        let run = {
            let home = EmbeddedWebviewProviderTests.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: home) }
            return try await ScenarioRunner.run(
                EmbeddedScenario.webPlatform, in: platform.toolkit.program, arguments: [setup.mode, setup.store],
                environment: [
                    "HOME": home.path,
                    "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                    "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                    "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
                ],
                launcher: ["dbus-run-session", "--"], display: platform.keyboardDisplay)
        }
        let report: ScenarioReport
        do {
            report = try await run()
        } catch let failure as ScenarioRunner.Failure where Self.isStallBetweenProbePages(failure.description) {
            // WebKitGTK now and then never finishes the navigation from the HTTP probe page to
            // the HTTPS one: the bare view alone does it too (1 run in 36 of GTK 4's, 10 at once
            // beside 4 CPU hogs), so it is WebKit's, not the sign-in's. Once more, said in the log;
            // a second stall fails the test.
            print("web-platform \(platform) \(setup): WebKit stalled between the probe pages, running once more")
            report = try await run()
        }
        #expect(report[.error] == nil, "\(report[.error] ?? "")")
        #expect(report[.gdkDisplay] == platform.gdkDisplayType)
        #expect(report[.outcome] == "success", "the sign-in goes on after the probe: \(report[.errorMessage] ?? "")")
        #expect(report[.terminalCount] == 1)
        #expect(report[.callbackHits] == 0)
        if setup.mode == "view" { #expect(report[.handlersLeft] == 0) }

        let bare = try Self.parts(report[.barePlatform])
        let signIn = try Self.parts(report[.signInPlatform])
        for part in ["http", "https"] {
            let bareResults = try #require(bare[part], "the bare view's \(part) probe did not report")
            let signInResults = try #require(signIn[part], "the sign-in view's \(part) probe did not report")
            #expect(bareResults.count >= (part == "http" ? 45 : 7), "\(part): \(bareResults.count) probes")
            for name in Set(bareResults.keys).union(signInResults.keys).sorted() {
                let expected = Self.documented[name] ?? bareResults[name]
                #expect(signInResults[name] == expected, "\(part) \(name): the sign-in view says \(signInResults[name] ?? "nothing"), the bare view \(bareResults[name] ?? "nothing")")
            }
        }
        // The bare view itself has what sign-in front ends rely on: a probe that fails everywhere proves nothing.
        let essential = ["localStorage", "sessionStorage", "indexedDB", "cacheStorage", "serverCookie", "workerBlob", "cryptoECDSA", "webAssembly", "postMessageCrossOrigin"]
        for name in essential { #expect(bare["http"]?[name] == "ok", "the bare view: \(name) \(bare["http"]?[name] ?? "missing")") }
        #expect(bare["https"]?["cookieSameSiteNoneSecure"] == "ok")

        let files = report[.homeFiles] ?? []
        let program = platform.toolkit.program
        if setup.store == "ephemeral" {
            let web = files.filter { $0.hasPrefix("data/") || $0.hasPrefix("cache/\(program)") || $0.contains("webview-host") }
            #expect(web == [], "an ephemeral sign-in wrote \(web)")
        } else if setup.mode == "window" {
            // The library's persistent store keeps the page's IndexedDB and local storage in the app's folder.
            let kept = files.filter { $0.contains("webview-host") }
            #expect(kept.contains { $0.contains("IndexedDB") }, "no IndexedDB in \(kept)")
            #expect(kept.contains { $0.lowercased().contains("localstorage") }, "no local storage in \(kept)")
        }
    }

    /// `{"http": {...}, "https": {...}}` as `part -> name -> value`.
    static func parts(_ json: String?) throws -> [String: [String: String]] {
        let object = try JSONSerialization.jsonObject(with: Data((json ?? "{}").utf8)) as? [String: [String: Any]] ?? [:]
        return object.mapValues { $0.mapValues { "\($0)" } }
    }
}
