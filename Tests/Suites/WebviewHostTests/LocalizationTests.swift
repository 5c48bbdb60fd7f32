import Foundation
import ScenarioSupport
import Testing

@testable import WebviewHost

/// The person's language (issue 26): chosen from the environment as gettext does, from a
/// browser's `Accept-Language`, found among the shipped catalogs, read from real `.mo` files,
/// and the catalogs complete and up to date with the sources.
@Suite("Translations: the person's language, the catalogs, right to left")
struct LocalizationTests {
    @Test(arguments: [
        (["LANG": "fr_FR.UTF-8"], ["fr_FR"]),
        (["LC_ALL": "C.UTF-8", "LANGUAGE": "fr"], ["fr"]),
        (["LANG": "de_DE.UTF-8", "LANGUAGE": "ar:he"], ["ar", "he", "de_DE"]),
        (["LC_ALL": "C", "LANGUAGE": "fr"], []),  // glibc ignores LANGUAGE in the C locale
        (["LANGUAGE": "fr"], []),  // no locale at all is the C locale
        (["LC_ALL": "uk_UA.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8", "LANG": "de_DE.UTF-8"], ["uk_UA"]),
        (["LC_MESSAGES": "pt_BR.UTF-8@euro", "LANG": "de_DE.UTF-8"], ["pt_BR"]),
        (["LANG": "POSIX"], []),
    ])
    func thePersonsLanguagesComeFromTheEnvironmentAsGettextReadsThem(_ environment: [String: String], _ expected: [String]) {
        #expect(WebviewLocalization.personLanguages(environment) == expected)
    }

    @Test func acceptLanguageIsReadBestFirst() {
        #expect(WebviewLocalization.languages(fromAcceptLanguage: "fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5") == ["fr-CH", "fr", "en", "de"])
        #expect(WebviewLocalization.languages(fromAcceptLanguage: "de;q=0.5, ar") == ["ar", "de"])
        #expect(WebviewLocalization.languages(fromAcceptLanguage: "he;q=0, it") == ["it"])
        #expect(WebviewLocalization.languages(fromAcceptLanguage: "") == [])
    }

    @Test func theFirstLanguageWithACatalogWinsAndEnglishIsTheSource() {
        #expect(WebviewLocalization.language(for: ["fr-CA"]) == "fr")
        #expect(WebviewLocalization.language(for: ["pt-BR", "de"]) == "pt")
        #expect(WebviewLocalization.language(for: ["ja", "nl_BE.UTF-8"]) == "nl")
        #expect(WebviewLocalization.language(for: ["en-GB", "fr"]) == "en", "English asked first is English")
        #expect(WebviewLocalization.language(for: ["ja", "zh-Hant-TW"]) == "en")
        #expect(WebviewLocalization.language(for: []) == "en")
    }

    /// Every language the issue names ships a catalog, found where SwiftPM copies the resources.
    @Test(arguments: ["fr", "ru", "it", "nl", "pt", "de", "es", "ar", "he", "uk"])
    func eachLanguageShipsACatalogThatTranslatesWhatThePersonSees(_ language: String) throws {
        let catalog = try #require(WebviewLocalization.catalog(for: language), "no catalog for \(language)")
        #expect(catalog.translations.count >= 40)
        let cancel = ShownText.tr("button", "_Cancel", languages: [language])
        #expect(cancel != "_Cancel" && cancel.filter { $0 == "_" }.count == 1, "\(language): \(cancel)")
        let time = ShownText.tr("device code", "Time left: {time}", ["time": "4:59"], languages: [language])
        #expect(time.contains("4:59") && !time.contains("{time}") && !time.hasPrefix("Time left"), "\(language): \(time)")
    }

    @Test func rightToLeftLanguagesIsolateWhatIsFilledIn() {
        #expect(WebviewLocalization.isRightToLeft("ar") && WebviewLocalization.isRightToLeft("he_IL") && WebviewLocalization.isRightToLeft("fa-IR"))
        #expect(!WebviewLocalization.isRightToLeft("fr") && !WebviewLocalization.isRightToLeft("uk"))
        let arabic = ShownText.tr("header bar", "{host} (not encrypted)", ["host": "login.example.com"], languages: ["ar"])
        #expect(arabic.contains("\u{2068}login.example.com\u{2069}"), "a host name stays left to right: \(arabic)")
        let french = ShownText.tr("header bar", "{host} (not encrypted)", ["host": "login.example.com"], languages: ["fr"])
        #expect(french.contains("login.example.com") && !french.contains("\u{2068}"))
        let page = ShownText.html("browser page", "Sign-in did not finish: {detail}", ["detail": "<b>&"], languages: ["he"])
        #expect(page.contains("<bdi>&lt;b&gt;&amp;</bdi>"))
    }

    /// A `.mo` in either byte order, with contexts; the header and plural entries left out; a file
    /// that is not a catalog is refused.
    @Test(arguments: ["little", "big"])
    func compiledCatalogsAreReadInEitherByteOrder(_ endianness: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wvh-mo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let po = folder.appendingPathComponent("x.po")
        try """
            msgid ""
            msgstr "Content-Type: text/plain; charset=UTF-8\\n"

            msgctxt "button"
            msgid "_Open"
            msgstr "_Ouvrir"

            msgid "file"
            msgid_plural "files"
            msgstr[0] "fichier"
            msgstr[1] "fichiers"

            msgctxt "status"
            msgid "Loading…"
            msgstr "Chargement…"
            """.write(to: po, atomically: true, encoding: .utf8)
        let mo = folder.appendingPathComponent("x.mo")
        let compiled = try await ScriptRunner.run("msgfmt", ["--endianness=\(endianness)", "-o", mo.path, po.path], timeout: 30)
        #expect(compiled.status == 0, "\(compiled.standardError)")
        let catalog = try #require(MessageCatalog(contentsOf: mo))
        #expect(catalog.translation(of: "_Open", context: "button") == "_Ouvrir")
        #expect(catalog.translation(of: "Loading…", context: "status") == "Chargement…")
        #expect(catalog.translation(of: "_Open", context: "status") == nil)
        #expect(catalog.translations.count == 2)
        #expect(MessageCatalog(data: Data("not a catalog at all, but long enough".utf8)) == nil)
        #expect(MessageCatalog(contentsOf: folder.appendingPathComponent("missing.mo")) == nil)
    }

    /// The template holds every text the sources show and nothing else; every catalog is
    /// complete, compiles (`msgfmt --check`) and is shipped as compiled.
    @Test func theCatalogsAreCompleteAndUpToDateWithTheSources() async throws {
        let script = Checkout.root.appendingPathComponent("Sources/WebviewHost/Localization/translations.py").path
        let result = try await ScriptRunner.run("python3", [script, "--check"], timeout: 120)
        #expect(result.status == 0, "\(result.standardError)")
    }
}
