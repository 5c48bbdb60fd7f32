import Foundation
import Synchronization

/// The language of every word the library shows people: its windows and questions, the page the
/// person's browser shows after the redirect, the device-code texts and the terminal prompts.
/// Error messages for developers (``WebAuthError/message``) stay English.
///
/// The translations are GNU gettext catalogs of the library's own domain, `webviewhost`
/// (`<dir>/<language>/LC_MESSAGES/webviewhost.mo`), shipped with the package. The library reads
/// them itself rather than through `gettext()`: the browser's page follows that browser's
/// `Accept-Language`, not the process's locale, and a terminal program that never called
/// `setlocale` still speaks the person's language.
///
/// By default the person's language comes from the environment as GNOME apps have it:
/// `LANGUAGE` (a colon-separated list, honoured unless the locale is `C` or `POSIX`), then
/// `LC_ALL`, `LC_MESSAGES`, `LANG`. Under Arabic, Hebrew, Persian or Urdu the library's windows
/// read right to left.
///
/// ``languages`` and ``catalogDirectory`` are settings of ``WebviewProviderRegistry``'s store:
/// set outside any isolated registry they are the process's; set inside
/// ``WebviewProviderRegistry/withIsolatedRegistry(isolation:_:)``, that scope's only (it starts with
/// the enclosing scope's). Text shown from a GLib callback, which runs in no task, follows the
/// process's.
public enum WebviewLocalization {
    /// The gettext domain of the library's catalogs.
    public static let domain = "webviewhost"

    /// The languages to show text in, best first, as BCP 47 tags or POSIX names (`"fr-CA"`,
    /// `"pt_BR"`, `"ar"`); `nil` (the default) takes the person's from the environment. Set it
    /// when the app lets people choose a language of their own. Any thread; per registry scope
    /// (see above).
    public static var languages: [String]? {
        get { languagesSetting.value }
        set { languagesSetting.value = newValue }
    }

    /// A folder holding `<language>/LC_MESSAGES/webviewhost.mo`, looked in before the others:
    /// for a distribution or a Flatpak that installs the catalogs (`/usr/share/locale`,
    /// `/app/share/locale`). The environment variable `WEBVIEWHOST_LOCALEDIR` does the same.
    /// Then: the catalogs SwiftPM copied beside the executable
    /// (`WebviewHost_WebviewHost.resources/locale`), `/app/share/locale`, `/usr/local/share/locale`,
    /// `/usr/share/locale`. Any thread; per registry scope (see above).
    public static var catalogDirectory: String? {
        get { catalogDirectorySetting.value }
        set { catalogDirectorySetting.value = newValue }
    }

    /// The languages in use now, best first: ``languages``, or the person's from the
    /// environment. Empty means English.
    public static var preferredLanguages: [String] {
        languages ?? personLanguages(ProcessInfo.processInfo.environment)
    }

    /// The language the library's text is shown in for `wanted` (best first): the first one with
    /// a catalog, as `"fr"` or `"pt_BR"`, or `"en"` (the source language).
    public static func language(for wanted: [String]) -> String {
        for language in wanted {
            for candidate in fallbacks(of: language) {
                if candidate == "en" { return "en" }
                if catalog(for: candidate) != nil { return candidate }
            }
        }
        return "en"
    }

    /// Whether text in `language` reads right to left (Arabic, Hebrew, Persian, Urdu, Yiddish...).
    public static func isRightToLeft(_ language: String) -> Bool {
        let base = fallbacks(of: language).last ?? language
        return ["ar", "he", "iw", "fa", "ur", "yi", "ps", "sd", "ug", "ckb", "dv"].contains(base)
    }

    /// The person's languages from `environment` (best first), as gettext takes them:
    /// `LANGUAGE` unless the locale is `C`/`POSIX` or unset, then the locale of messages.
    public static func personLanguages(_ environment: [String: String]) -> [String] {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let locale, !["C", "POSIX"].contains(locale) else { return [] }
        var result: [String] = []
        if let list = environment["LANGUAGE"], !list.isEmpty {
            result += list.split(separator: ":").map(String.init).filter { !$0.isEmpty }
        }
        let name = posixName(locale)
        if !name.isEmpty, name != "c" { result.append(name) }
        return result
    }

    /// The languages of an `Accept-Language` header, best first (`q=0` and `*` left out).
    public static func languages(fromAcceptLanguage header: String) -> [String] {
        let entries = header.split(separator: ",").enumerated().compactMap { index, part -> (String, Double, Int)? in
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = fields.first, !tag.isEmpty, tag != "*" else { return nil }
            var quality = 1.0
            for field in fields.dropFirst() where field.lowercased().hasPrefix("q=") {
                quality = Double(field.dropFirst(2)) ?? 0
            }
            return quality > 0 ? (tag, quality, index) : nil
        }
        return entries.sorted { ($0.1, -$0.2) > ($1.1, -$1.2) }.map(\.0)
    }

    // MARK: Catalogs

    private static let languagesSetting = ScopedSetting<[String]?> { nil }
    private static let catalogDirectorySetting = ScopedSetting<String?> { nil }

    /// A language's catalog as found with one ``catalogDirectory``.
    private struct CatalogKey: Hashable {
        let directory: String?
        let language: String
    }

    /// Loaded catalogs; `nil` for a language without one. A cache, not a setting: shared by every scope.
    private static let catalogs = Mutex<[CatalogKey: MessageCatalog?]>([:])

    /// The catalog for `language` (`"fr"`, `"pt_BR"`), loaded once per ``catalogDirectory``.
    static func catalog(for language: String) -> MessageCatalog? {
        let chosen = catalogDirectory
        let key = CatalogKey(directory: chosen, language: language)
        if let known = catalogs.withLock({ $0[key] }) { return known }
        let directories = catalogDirectories(chosen: chosen)
        let found = directories.lazy.compactMap { directory in
            MessageCatalog(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent("\(language)/LC_MESSAGES/\(domain).mo"))
        }.first
        catalogs.withLock { $0[key] = .some(found) }
        return found
    }

    /// Where catalogs are looked for, in order (`chosen`: the current scope's ``catalogDirectory``).
    static func catalogDirectories(chosen: String? = catalogDirectory) -> [String] {
        var directories: [String] = []
        if let chosen { directories.append(chosen) }
        if let variable = ProcessInfo.processInfo.environment["WEBVIEWHOST_LOCALEDIR"], !variable.isEmpty {
            directories.append(variable)
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        for base in [Bundle.main.bundleURL, executable] {
            directories.append(base.appendingPathComponent("WebviewHost_WebviewHost.resources/locale").path)
        }
        directories += ["/app/share/locale", "/usr/local/share/locale", "/usr/share/locale"]
        return directories
    }

    /// `"pt-BR"` → `["pt_BR", "pt"]`; `"fr_FR.UTF-8@euro"` → `["fr_FR", "fr"]`.
    static func fallbacks(of language: String) -> [String] {
        let name = posixName(language)
        guard let separator = name.firstIndex(of: "_") else { return name.isEmpty ? [] : [name] }
        return [name, String(name[..<separator])]
    }

    /// A POSIX locale name without codeset and modifier, with a BCP 47 tag's region: `"pt_BR"`.
    private static func posixName(_ name: String) -> String {
        var name = name
        if let at = name.firstIndex(of: "@") { name = String(name[..<at]) }
        if let dot = name.firstIndex(of: ".") { name = String(name[..<dot]) }
        let parts = name.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let language = parts.first?.lowercased() else { return "" }
        // "zh-Hant-TW": the script is left out; a two-letter or three-digit part is the region.
        let region = parts.dropFirst().first { $0.count == 2 || ($0.count == 3 && $0.allSatisfy(\.isNumber)) }
        return region.map { "\(language)_\($0.uppercased())" } ?? language
    }
}
