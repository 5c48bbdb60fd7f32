import Foundation
import WebviewHost

/// The pages the person's browser shows once it reached the loopback listener, in that
/// browser's language (its `Accept-Language`, not the app's locale), with `lang`, `dir` and
/// `Content-Language`. They never show the authorization code; a server's error description is
/// HTML-escaped.
enum BrowserCompletionPage {
    /// The built-in page for a finished sign-in.
    case success
    /// The built-in page for a failed sign-in, with the server's `error_description` (or the
    /// session's message) when there is one.
    case failure(WebAuthError)
    /// The built-in page after the identity provider's logout (``WebviewHost/BrowserCompletion/signedOutPage``).
    case signedOut
    /// The built-in page for a logout that did not finish.
    case signOutFailure(WebAuthError)
    /// A request the listener does not serve (a favicon, a stray path).
    case notFound
    /// A request that names another host (421 Misdirected Request).
    case misdirected
    /// A request that came after the sign-in had already ended.
    case alreadyEnded

    /// The page in the first of `languages` (an `Accept-Language`'s, best first) the library has,
    /// and that language (`"en"` when none): for `Content-Language`.
    func rendered(for languages: [String]) -> (html: String, language: String) {
        let language = WebviewLocalization.language(for: languages)
        let chosen = [language]
        func html(_ context: String, _ english: String, _ arguments: [String: String] = [:]) -> String {
            ShownText.html(context, english, arguments, languages: chosen)
        }
        let title: String
        var paragraphs: [String]
        switch self {
        case .success:
            title = html("browser page title", "Sign-in finished")
            paragraphs = [html("browser page", "You are signed in. You can close this tab and return to the app.")]
        case .failure(let error):
            title = html("browser page title", "Sign-in failed")
            paragraphs = [
                html("browser page", "Sign-in did not finish: {detail}", ["detail": Self.detail(of: error)]),
                html("browser page", "You can close this tab and try again from the app."),
            ]
        case .signedOut:
            title = html("browser page title", "Signed out")
            paragraphs = [html("browser page", "You are signed out. You can close this tab and return to the app.")]
        case .signOutFailure(let error):
            title = html("browser page title", "Sign-out did not finish")
            paragraphs = [
                html("browser page", "Signing out at the identity provider did not finish: {detail}", ["detail": Self.detail(of: error)]),
                html("browser page", "The app has forgotten your sign-in all the same. You can close this tab."),
            ]
        case .notFound:
            title = html("browser page title", "Not found")
            paragraphs = [html("browser page", "There is nothing here.")]
        case .misdirected:
            title = html("browser page title", "Wrong address")
            paragraphs = [html("browser page", "This address does not serve the sign-in. Use the link the app opened.")]
        case .alreadyEnded:
            title = html("browser page title", "Sign-in already ended")
            paragraphs = [html("browser page", "This sign-in has already ended. You can close this tab.")]
        }
        let tag = language.replacingOccurrences(of: "_", with: "-")
        let direction = WebviewLocalization.isRightToLeft(language) ? "rtl" : "ltr"
        let page = """
            <!DOCTYPE html>
            <html lang="\(tag)" dir="\(direction)"><head><meta charset="utf-8"><title>\(title)</title>
            <style>body{font-family:sans-serif;max-width:32em;margin:4em auto;padding:0 1em;color:#222}</style>
            </head><body><h1>\(title)</h1>\(paragraphs.map { "<p>\($0)</p>" }.joined())</body></html>
            """
        return (page, tag)
    }

    private static func detail(of error: WebAuthError) -> String {
        error.serverError?.errorDescription ?? error.serverError?.error ?? error.message
    }
}
