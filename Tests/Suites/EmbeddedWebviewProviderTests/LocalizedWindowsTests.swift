import Foundation
import ScenarioSupport
import Testing
import TestTraits

/// Issue 26: the library's windows in the person's language. Under `LANGUAGE=fr` (or ar, he, with
/// `LC_ALL=C.UTF-8` as on a minimal Debian), or the app's own choice (`WebviewLocalization.languages`
/// set to German over a French environment), no text the sign-in window, its question or the
/// device-code window shows is the English original; Arabic and Hebrew windows read right to
/// left (Cancel on the right); the identity provider's page is asked for the same language
/// (`Accept-Language`, `navigator.languages`).
@Suite("The library's windows in the person's language", .serialized, .desktop)
struct LocalizedWindowsTests {
    /// Every English text of the template, as a pattern (a `{placeholder}` matches anything, the
    /// mnemonic's underscore is optional: GTK's labels drop it, buttons keep it).
    static let englishTexts: [NSRegularExpression] = {
        let template = Checkout.root.appendingPathComponent("Sources/WebviewHost/Localization/po/webviewhost.pot")
        let text = (try? String(contentsOf: template, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> NSRegularExpression? in
            guard line.hasPrefix("msgid \""), line != "msgid \"\"" else { return nil }
            let english = String(line.dropFirst(7).dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            var pattern = NSRegularExpression.escapedPattern(for: english)
            pattern = pattern.replacingOccurrences(of: "\\{[a-z]+\\}", with: ".+", options: .regularExpression)
            pattern = pattern.replacingOccurrences(of: "_", with: "_?")
            return try? NSRegularExpression(pattern: "^\(pattern)$")
        }
    }()

    static func isEnglish(_ text: String) -> Bool {
        englishTexts.contains { $0.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil }
    }

    @Test(arguments: Platform.x11, [("fr", ""), ("ar", ""), ("he", ""), ("fr", "de")])
    func everyShownTextIsInThePersonsLanguage(_ platform: Platform, _ languages: (environment: String, app: String)) async throws {
        #expect(Self.englishTexts.count >= 40, "the template was read")
        let folder = EmbeddedWebviewProviderTests.temporaryFolder()
        // WebKitGTK 6.0's sandbox binds folders under XDG_CACHE_HOME: it must exist.
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("cache"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let shot = folder.appendingPathExtension("png")
        defer { try? FileManager.default.removeItem(at: shot) }
        let report = try await ScenarioRunner.run(
            EmbeddedScenario.localizedWindows, in: platform.toolkit.program, arguments: [languages.app, shot.path],
            environment: [
                "XDG_DATA_HOME": folder.appendingPathComponent("data").path,
                "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path,
                "LANGUAGE": languages.environment, "LC_ALL": "C.UTF-8",
            ],
            display: platform.display)
        let language = languages.app.isEmpty ? languages.environment : languages.app
        #expect(report[.outcome] == "success", "\(report[.outcome] ?? "")")
        let shown = report[.shownTexts] ?? []
        #expect(shown.count >= 12, "\(shown)")
        let english = shown.filter(Self.isEnglish)
        #expect(english.isEmpty, "shown in English under \(language): \(english)\nall: \(shown)")
        let rightToLeft = ["ar", "he"].contains(language)
        #expect(report[.direction] == (rightToLeft ? "rtl" : "ltr"))
        #expect(report[.dialogDirection] == (rightToLeft ? "rtl" : "ltr"))
        #expect(report[.cancelOnTheRight] == rightToLeft, "the header bar mirrors")
        #expect(report[.acceptLanguage]?.hasPrefix(language) == true, "the page was asked in \(language): \(report[.acceptLanguage] ?? "")")
        #expect(report[.navigatorLanguages]?.hasPrefix(language) == true, "\(report[.navigatorLanguages] ?? "")")
    }
}
