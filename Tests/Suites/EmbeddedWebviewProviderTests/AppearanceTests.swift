import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// The person's look (issue 17, item 6): the library's window and the page follow the desktop's
/// light/dark preference. Each scenario runs on a private session bus (`dbus-run-session`) where
/// a fake Settings portal answers `org.freedesktop.appearance color-scheme`, or where no portal
/// runs and the desktop's GTK `settings.ini` prefers dark.
@Suite("The sign-in window and page follow the desktop's light/dark preference", .serialized, .desktop)
struct AppearanceTests {
    static func appearance(_ preference: String, on platform: Platform, gtkPrefersDark: Bool = false) async throws -> ScenarioReport {
        let home = EmbeddedWebviewProviderTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        let config = home.appendingPathComponent("config")
        for folder in ["gtk-3.0", "gtk-4.0"] {
            let settings = config.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: settings, withIntermediateDirectories: true)
            if gtkPrefersDark {
                try Data("[Settings]\ngtk-application-prefer-dark-theme=1\n".utf8).write(to: settings.appendingPathComponent("settings.ini"))
            }
        }
        let report = try await ScenarioRunner.run(
            EmbeddedScenario.appearance, in: platform.toolkit.program, arguments: [preference],
            environment: [
                "HOME": home.path,
                "XDG_CONFIG_HOME": config.path,
                "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
            ],
            launcher: ["dbus-run-session", "--"], display: platform.display)
        #expect(report[.gdkDisplay] == platform.gdkDisplayType, "GTK ran on another display than asked")
        #expect(report[.outcome] == "success", "\(report[.errorMessage] ?? "")")
        return report
    }

    @Test("The portal prefers dark: the page sees prefers-color-scheme: dark, and the app's GTK setting is back afterwards", arguments: Platform.everywhere)
    func portalDark(_ platform: Platform) async throws {
        let report = try await Self.appearance("dark", on: platform)
        #expect(report[.portalOwned] == true)
        #expect(report[.pageReport] == "dark=true")
        #expect(report[.appPrefersDarkBefore] == false)
        #expect(report[.appPrefersDarkDuring] == true, "the library's window is dark")
        #expect(report[.appPrefersDarkAfter] == false, "the app's own setting is back")
    }

    @Test(
        "The portal prefers light, or has no preference: the page sees light",
        arguments: Platform.standard, ["light", "none"])
    func portalLight(_ platform: Platform, preference: String) async throws {
        let report = try await Self.appearance(preference, on: platform)
        #expect(report[.portalOwned] == true)
        #expect(report[.pageReport] == "dark=false")
        #expect(report[.appPrefersDarkDuring] == false)
    }

    @Test("The portal prefers light over a GTK setting that prefers dark, for the session only", arguments: Platform.standard)
    func portalLightOverGTKDark(_ platform: Platform) async throws {
        let report = try await Self.appearance("light", on: platform, gtkPrefersDark: true)
        #expect(report[.pageReport] == "dark=false")
        #expect(report[.appPrefersDarkBefore] == true)
        #expect(report[.appPrefersDarkAfter] == true)
    }

    @Test("No portal: the desktop's GTK setting (settings.ini prefers dark) decides", arguments: Platform.standard)
    func gtkSettingWithoutPortal(_ platform: Platform) async throws {
        let report = try await Self.appearance("no-portal", on: platform, gtkPrefersDark: true)
        #expect(report[.pageReport] == "dark=true")
        #expect(report[.appPrefersDarkAfter] == true)
    }
}
