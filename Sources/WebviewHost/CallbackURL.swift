package import Foundation

/// A URL a user agent reported at the redirect URI, parsed once: the redirect match
/// (``RedirectURI/matches(_:)-(CallbackURL)``) and the response (``WebAuthResponse``) both read
/// these components, so what was matched is what is read.
///
/// Text with invalid characters or malformed percent-encoding is kept (parsed leniently, as
/// `URL(string:)` re-encodes it) so that it can still be recognised as the redirect, and then
/// refused with `invalidResponse` instead of being read re-encoded.
package struct CallbackURL: Sendable {
    /// The URL (re-encoded when ``isWellFormed`` is false).
    package let url: URL
    /// The URL's components; `nil` when Foundation cannot split it.
    package let components: URLComponents?
    /// Whether the text was a URL as it is: no invalid characters, no malformed percent-encoding.
    package let isWellFormed: Bool
    /// The text as the user agent reported it, when it came as text.
    package let text: String?

    /// `nil` when `text` is not a URL even leniently.
    package init?(_ text: String) {
        if let url = URL(string: text, encodingInvalidCharacters: false) {
            self.init(url: url, isWellFormed: true, text: text)
        } else if let url = URL(string: text) {
            self.init(url: url, isWellFormed: false, text: text)
        } else {
            return nil
        }
    }

    /// A URL the user agent gave as a `URL` (already well formed).
    package init(_ url: URL) {
        self.init(url: url, isWellFormed: true, text: nil)
    }

    private init(url: URL, isWellFormed: Bool, text: String?) {
        self.url = url
        self.isWellFormed = isWellFormed
        self.text = text
        components = URLComponents(url: url, resolvingAgainstBaseURL: true)
    }
}
