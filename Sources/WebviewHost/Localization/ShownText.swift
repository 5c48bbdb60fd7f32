import Foundation

/// A text the library shows a person, looked up in the person's language. Every call site is
/// `ShownText.tr("context", "English text")` with two string literals, which is what
/// `Sources/WebviewHost/Localization/translations.py` extracts into the template (xgettext's
/// keyword `tr:1c,2`, read with a Swift-aware pattern); a `{name}` in the text is a placeholder, filled with
/// `arguments`, which right-to-left text keeps in their own direction (Unicode isolates).
package enum ShownText {
    /// `text` (the English original) in the first of `languages` (default: the app's or the
    /// person's, ``WebviewLocalization/preferredLanguages``) that has a translation of it.
    package static func tr(
        _ context: String, _ text: String, _ arguments: [String: String] = [:], languages: [String]? = nil
    ) -> String {
        let language = language(languages)
        let isolated = WebviewLocalization.isRightToLeft(language)
        return fill(translated(context, text, language: language), arguments) { isolated ? "\u{2068}\($0)\u{2069}" : $0 }
    }

    /// ``tr(_:_:_:languages:)`` for an HTML page: the arguments HTML-escaped and isolated with `<bdi>`.
    package static func html(
        _ context: String, _ text: String, _ arguments: [String: String] = [:], languages: [String]? = nil
    ) -> String {
        fill(escapeHTML(translated(context, text, language: language(languages))), arguments) { "<bdi>\(escapeHTML($0))</bdi>" }
    }

    /// The language ``tr(_:_:_:languages:)`` shows text in for `languages`.
    package static func language(_ languages: [String]? = nil) -> String {
        WebviewLocalization.language(for: languages ?? WebviewLocalization.preferredLanguages)
    }

    private static func translated(_ context: String, _ text: String, language: String) -> String {
        guard language != "en", let catalog = WebviewLocalization.catalog(for: language) else { return text }
        return catalog.translation(of: text, context: context) ?? text
    }

    private static func fill(_ text: String, _ arguments: [String: String], wrap: (String) -> String) -> String {
        arguments.reduce(text) { result, argument in result.replacingOccurrences(of: "{\(argument.key)}", with: wrap(argument.value)) }
    }

    /// Escapes `&`, `<`, `>`, `"` and `'` for HTML text and attribute values.
    package static func escapeHTML(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
