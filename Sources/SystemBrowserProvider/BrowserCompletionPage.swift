import Foundation
import WebviewHost

/// The page the person's browser shows once the redirect reached the loopback listener.
/// It never shows the authorization code; a server's error description is HTML-escaped.
enum BrowserCompletionPage {
    /// The built-in page for a finished sign-in.
    static let success = page(
        title: "Sign-in finished",
        body: "<p>You are signed in. You can close this tab and return to the app.</p>")

    /// The built-in page for a failed sign-in, with the server's `error_description` (or the
    /// session's message) when there is one.
    static func failure(_ error: WebAuthError) -> String {
        let detail = error.serverError?.errorDescription ?? error.serverError?.error ?? error.message
        return page(
            title: "Sign-in failed",
            body: "<p>Sign-in did not finish: \(escapeHTML(detail))</p>"
                + "<p>You can close this tab and try again from the app.</p>")
    }

    /// The built-in page after the identity provider's logout (``WebviewHost/BrowserCompletion/signedOutPage``).
    static let signedOut = page(
        title: "Signed out",
        body: "<p>You are signed out. You can close this tab and return to the app.</p>")

    /// The built-in page for a logout that did not finish.
    static func signOutFailure(_ error: WebAuthError) -> String {
        let detail = error.serverError?.errorDescription ?? error.serverError?.error ?? error.message
        return page(
            title: "Sign-out did not finish",
            body: "<p>Signing out at the identity provider did not finish: \(escapeHTML(detail))</p>"
                + "<p>The app has forgotten your sign-in all the same. You can close this tab.</p>")
    }

    /// The page for a request the listener does not serve (a favicon, a stray path).
    static let notFound = page(title: "Not found", body: "<p>There is nothing here.</p>")

    /// The page for a request that names another host (421 Misdirected Request).
    static let misdirected = page(
        title: "Wrong address", body: "<p>This address does not serve the sign-in. Use the link the app opened.</p>")

    /// The page for a request that came after the sign-in had already ended.
    static let alreadyEnded = page(
        title: "Sign-in already ended",
        body: "<p>This sign-in has already ended. You can close this tab.</p>")

    /// Escapes `&`, `<`, `>`, `"` and `'` for HTML text and attribute values.
    static func escapeHTML(_ text: String) -> String {
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

    private static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><title>\(title)</title>
        <style>body{font-family:sans-serif;max-width:32em;margin:4em auto;padding:0 1em;color:#222}</style>
        </head><body><h1>\(title)</h1>\(body)</body></html>
        """
    }
}
