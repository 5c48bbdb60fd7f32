import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// The sign-in surface (issue 17, item 4; Docs.docc/SignInSurface.md): one test per row of the
/// article's table where the behaviour can be seen. Each page tries it from its own timers, or
/// after a real click (an X input event through XTest, `xdotool`: X11 only) where a gesture changes
/// WebKit's answer, then goes on to the redirect URI by itself: the session ends with success and
/// nothing is granted, written or shown. Each scenario runs with a temporary `$HOME` holding the
/// XDG folders and an existing `Downloads` folder named in `user-dirs.dirs`, as a person has, on
/// a private session bus and, on X11, a private X server.
@Suite("The embedded view is a sign-in surface, not a browser", .serialized, .desktop)
struct SignInSurfaceTests {
    static let modes = ["window", "view"]

    /// Runs the `surface` scenario in a new temporary home; returns its report and the home.
    static func surface(_ mode: String, _ kind: String, on platform: Platform) async throws -> (ScenarioReport, URL) {
        let home = EmbeddedWebviewProviderTests.temporaryFolder()
        let config = home.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: home.appendingPathComponent("Downloads"), withIntermediateDirectories: true)
        try Data("XDG_DOWNLOAD_DIR=\"$HOME/Downloads\"\n".utf8).write(to: config.appendingPathComponent("user-dirs.dirs"))
        let report = try await ScenarioRunner.run(
            EmbeddedScenario.surface, in: platform.toolkit.program, arguments: [mode, kind],
            environment: [
                "HOME": home.path,
                "XDG_CONFIG_HOME": config.path,
                "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
            ],
            // A session bus of its own: one that GIO autolaunches for the display outlives the
            // scenario, and the accessibility bus it starts keeps its socket in that scenario's
            // (deleted) home, which WebKitGTK 6.0's sandbox then fails to bind.
            // On X11 a display of its own: a real click lands on whatever window is on top at
            // that point of the screen, and on the shared display that can be a window of a test
            // running in parallel (it was, once in a while, on a busy machine).
            launcher: ["dbus-run-session", "--"], display: platform.keyboardDisplay)
        #expect(report[.gdkDisplay] == platform.gdkDisplayType, "GTK ran on another display than asked")
        return (report, home)
    }

    /// What every surface scenario must show: the page finished the sign-in by itself, once, and
    /// nothing of the session is left (no window, no handler on a caller's view).
    static func expectSignInCompleted(_ report: ScenarioReport, mode: String) {
        #expect(report[.outcome] == "success", "\(report[.errorMessage] ?? "")")
        #expect(report[.terminalCount] == 1)
        #expect(report[.callbackHits] == 0)
        #expect(report[.libraryToplevelsAfter] == 0)
        if mode == "view" {
            // After a right click WebKitGTK 4.1 keeps its GtkMenu attached to the view, which
            // connects the view's `screen-changed` (WebKit's handler, not the library's).
            let gained = report[.signalsGainingHandlers] ?? []
            #expect(report[.handlersLeft] == 0 || gained == ["screen-changed"], "handlers left on \(gained)")
        }
    }

    /// Only the library's window (or nothing besides the caller's window) was ever shown.
    static func expectNothingShown(_ report: ScenarioReport, mode: String) {
        #expect(report[.maxLibraryToplevels] == (mode == "window" ? 1 : 0), "a window or dialog besides the sign-in page")
        #expect(report[.maxPopovers] == 0, "a menu or popover was shown")
    }

    /// The page's own report (`/report?name=value&...`), decoded.
    static func pageReport(_ report: ScenarioReport) -> [String: String] {
        // URLSearchParams writes a space as "+", which URLComponents leaves as it is.
        let query = (report[.pageReport] ?? "").replacingOccurrences(of: "+", with: "%20")
        let items = URLComponents(string: "?" + query)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }) { $1 }
    }

    // MARK: Downloads

    static let downloads = [
        "download-attachment", "download-html-attachment", "download-type", "download-iframe",
        "download-anchor", "download-blob", "download-data",
    ]

    @Test(
        "A download the page starts by itself (attachment, unshown type, frame, <a download>, blob, data URL) is never saved; the sign-in goes on",
        arguments: Platform.standard, product(modes, downloads))
    func downloadsRefused(_ platform: Platform, page: (mode: String, kind: String)) async throws {
        let (report, home) = try await Self.surface(page.mode, page.kind, on: platform)
        Self.expectSignInCompleted(report, mode: page.mode)
        Self.expectNothingShown(report, mode: page.mode)
        #expect(report[.filesWithDownload] == [], "the download's content is on disk")
        let saved = try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("Downloads").path)
        #expect(saved == [], "the Downloads folder holds \(saved)")
        try? FileManager.default.removeItem(at: home)
    }

    @Test("An attachment is refused on Wayland too", arguments: Platform.wayland)
    func downloadRefusedOnWayland(_ platform: Platform) async throws {
        let (report, home) = try await Self.surface("window", "download-attachment", on: platform)
        Self.expectSignInCompleted(report, mode: "window")
        #expect(report[.filesWithDownload] == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("Downloads").path) == [])
        try? FileManager.default.removeItem(at: home)
    }

    // MARK: Permissions

    @Test("Every permission a page asks for from a timer is refused, and the Permissions API says so", arguments: Platform.standard, modes)
    func permissionsFromTimer(_ platform: Platform, mode: String) async throws {
        let (report, home) = try await Self.surface(mode, "permissions", on: platform)
        defer { try? FileManager.default.removeItem(at: home) }
        Self.expectSignInCompleted(report, mode: mode)
        Self.expectNothingShown(report, mode: mode)
        let page = Self.pageReport(report)
        #expect(page["geolocation"] == "error 1", "PERMISSION_DENIED")
        #expect(page["notifications"] == "denied")
        #expect(page["query-geolocation"] == "denied")
        for name in ["query-notifications", "query-camera", "query-microphone"] {
            #expect(page[name] != nil && page[name] != "granted", "\(name): \(page[name] ?? "missing")")
        }
        #expect(page["mediaDevices"] == "absent", "getUserMedia is not there at all (enable-media-stream off)")
        #expect(page["clipboard"]?.hasPrefix("refused") == true)
    }

    @Test(
        "After a real click, a notification request is denied, and granted only when the app allows notifications (X11)",
        arguments: Platform.x11, ["permissions-click", "permissions-click-allow-notifications"])
    func permissionsAfterClick(_ platform: Platform, kind: String) async throws {
        let (report, home) = try await Self.surface("window", kind, on: platform)
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(report[.clickStatus] == 0, "xdotool could not click")
        Self.expectSignInCompleted(report, mode: "window")
        let page = Self.pageReport(report)
        let allowed = kind.hasSuffix("allow-notifications")
        #expect(page["notifications"] == (allowed ? "granted" : "denied"))
        #expect(page["geolocation"] == "error 1")
        #expect(page["query-geolocation"] == "denied")
        #expect(page["clipboard"]?.hasPrefix("refused") == true)
    }

    @Test(
        "After a real click, a session keeps the allowed permissions of the isolated scope it started in, changed there once it started; the process's stay (X11)",
        arguments: Platform.x11)
    func permissionsOfTheStartingScope(_ platform: Platform) async throws {
        let (report, home) = try await Self.surface("window", "permissions-click-isolated", on: platform)
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(report[.clickStatus] == 0, "xdotool could not click")
        Self.expectSignInCompleted(report, mode: "window")
        let page = Self.pageReport(report)
        #expect(page["notifications"] == "granted", "the scope allowed notifications when the session started: \(page)")
        #expect(page["geolocation"] == "error 1")
        #expect(report[.settingPermissions] == [], "the process's allowedPermissions are untouched")
    }

    // MARK: Dialogs, print, choosers, fullscreen, menus

    @Test("alert, confirm and prompt from a timer are not shown and do not hold the page (confirm false, prompt null)", arguments: Platform.standard, modes)
    func scriptDialogs(_ platform: Platform, mode: String) async throws {
        let (report, home) = try await Self.surface(mode, "dialogs", on: platform)
        defer { try? FileManager.default.removeItem(at: home) }
        Self.expectSignInCompleted(report, mode: mode)
        Self.expectNothingShown(report, mode: mode)
        #expect(Self.pageReport(report) == ["confirm": "false", "prompt": "null"])
    }

    @Test("A beforeunload handler cannot keep the page: the page goes on to the redirect", arguments: Platform.standard, modes)
    func beforeUnload(_ platform: Platform, mode: String) async throws {
        let (report, home) = try await Self.surface(mode, "beforeunload", on: platform)
        defer { try? FileManager.default.removeItem(at: home) }
        Self.expectSignInCompleted(report, mode: mode)
        Self.expectNothingShown(report, mode: mode)
    }

    @Test("window.print() shows no print dialog and returns", arguments: Platform.standard, modes)
    func print(_ platform: Platform, mode: String) async throws {
        let (report, home) = try await Self.surface(mode, "print", on: platform)
        defer { try? FileManager.default.removeItem(at: home) }
        Self.expectSignInCompleted(report, mode: mode)
        Self.expectNothingShown(report, mode: mode)
        #expect(Self.pageReport(report)["printed"] == "returned")
    }

    @Test(
        "After a real click: no file chooser, color chooser, fullscreen or pointer lock (X11)",
        arguments: Platform.x11, product(modes, ["file-chooser-click", "color-chooser-click", "fullscreen-click", "pointer-lock-click"]))
    func gestureRequests(_ platform: Platform, page: (mode: String, kind: String)) async throws {
        let (report, home) = try await Self.surface(page.mode, page.kind, on: platform)
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(report[.clickStatus] == 0, "xdotool could not click")
        Self.expectSignInCompleted(report, mode: page.mode)
        Self.expectNothingShown(report, mode: page.mode)
        let values = Self.pageReport(report)
        #expect(!values.isEmpty, "the click never reached the page (\(report[.clickAttempts] ?? 0) clicks)")
        #expect(values["fullscreen"] != "entered" && values["element"] == nil)
        #expect(values["pointerLock"] == nil || values["pointerLock"]?.hasPrefix("refused") == true)
    }

    /// `WebKitContextMenuAction` values the surface keeps (editing); the browser's items
    /// (10-13: back, forward, stop, reload; open, download, inspect...) never reach the screen.
    static let editingActions: Set<Int> = [14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 43, 44]

    @Test(
        "A real right click shows no browser menu on the page; in a text field only editing items (X11)",
        arguments: Platform.x11, product(modes, ["context-menu-click", "context-menu-field-click"]))
    func contextMenu(_ platform: Platform, page: (mode: String, kind: String)) async throws {
        let (report, home) = try await Self.surface(page.mode, page.kind, on: platform)
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(report[.clickStatus] == 0, "xdotool could not click")
        Self.expectSignInCompleted(report, mode: page.mode)
        let menus = report[.contextMenusShown] ?? []
        if page.kind == "context-menu-click" {
            #expect(menus == [], "a menu reached the screen: \(menus)")
        } else {
            #expect(menus.count == 1, "the field's editing menu is kept")
            let actions = menus.first?.split(separator: ",").compactMap { Int($0) } ?? []
            #expect(actions.contains(16), "Paste is there")
            #expect(actions.allSatisfy { $0 == 0 || Self.editingActions.contains($0) }, "\(actions)")
        }
    }

    // MARK: Settings and data

    @Test("A caller's settings are the sign-in's during the session and the caller's again afterwards", arguments: Platform.standard)
    func callerSettingsRestored(_ platform: Platform) async throws {
        let (report, home) = try await Self.surface("view", "dialogs", on: platform)
        defer { try? FileManager.default.removeItem(at: home) }
        Self.expectSignInCompleted(report, mode: "view")
        let before = report[.settingsBefore] ?? []
        let during = report[.settingsDuring] ?? []
        #expect(before.contains("enable-developer-extras=true"))
        #expect(during.contains("enable-developer-extras=false"))
        #expect(during.contains("enable-fullscreen=false"))
        #expect(during.contains("enable-media-stream=false"))
        #expect(during.contains("media-playback-requires-user-gesture=true"))
        #expect(report[.settingsAfter] == before)
    }

    @Test("An ephemeral sign-in whose page stores cookies, local storage and caches leaves nothing of it on disk", arguments: Platform.standard)
    func ephemeralLeavesNothing(_ platform: Platform) async throws {
        let (report, home) = try await Self.surface("window", "ephemeral-storage", on: platform)
        defer { try? FileManager.default.removeItem(at: home) }
        Self.expectSignInCompleted(report, mode: "window")
        let page = Self.pageReport(report)
        #expect(page["cookie"] == "stored" && page["localStorage"] == "stored" && page["cacheStorage"] == "stored")
        let files = report[.homeFiles] ?? []
        // What GTK, Mesa, D-Bus and WebKit's sandbox write for any program is not the sign-in's.
        let program = platform.toolkit.program
        let web = files.filter { $0.hasPrefix("data/") || $0.hasPrefix("cache/\(program)") || $0.contains("webview-host") }
        #expect(web == [], "the ephemeral session wrote \(web)")
        #expect(!files.contains { $0.hasPrefix("Downloads/") })
    }
}
